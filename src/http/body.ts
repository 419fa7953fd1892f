import secureJson from 'secure-json-parse';
import { AppError, invalid } from '../platform/errors.js';
import { HTTP_ERRORS } from './errors.js';

const utf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * Decodes a body only after its signature has been checked over the raw bytes: invalid UTF-8 is refused (never
 * replaced), and `__proto__` / `constructor` keys are refused rather than silently dropped.
 */
export function decodeJsonBody(raw: Buffer): unknown {
  const value = parseJson(keepInexactNumbersAsWritten(decodeUtf8(raw)));
  const field = fieldWithNul(value);
  if (field !== undefined) throw invalid(field, 'must not contain the character U+0000');
  return value;
}

function decodeUtf8(raw: Buffer): string {
  try {
    return utf8.decode(raw);
  } catch {
    throw new AppError(HTTP_ERRORS.bodyNotUtf8);
  }
}

function parseJson(text: string): unknown {
  try {
    return secureJson.parse(text, undefined, { protoAction: 'error', constructorAction: 'error' });
  } catch (error) {
    if (error instanceof SyntaxError) {
      if (/prototype property/i.test(error.message)) throw new AppError(HTTP_ERRORS.bodyForbiddenKey);
      throw new AppError(HTTP_ERRORS.bodyNotJson, `The request body is not valid JSON: ${error.message}`);
    }
    // A RangeError from nesting too deep to walk is still bad input, not a fault.
    throw new AppError(HTTP_ERRORS.bodyNotJson, 'The request body is not valid JSON: nested too deeply.');
  }
}

/**
 * PostgreSQL text cannot hold U+0000, and no payment field has a use for it: refused everywhere, once, here.
 * Returns the path of the first string (value or key) holding it. Iterative: bodies may nest deeply.
 */
function fieldWithNul(root: unknown): string | undefined {
  const stack: Array<{ value: unknown; path: string }> = [{ value: root, path: '' }];
  while (stack.length > 0) {
    const { value, path } = stack.pop()!;
    if (typeof value === 'string') {
      if (value.includes('\u0000')) return path || 'The request body';
    } else if (Array.isArray(value)) {
      for (const [index, item] of value.entries()) stack.push({ value: item, path: `${path}[${index}]` });
    } else if (value !== null && typeof value === 'object') {
      for (const [key, item] of Object.entries(value)) {
        const child = path ? `${path}.${key}` : key;
        if (key.includes('\u0000')) return child;
        stack.push({ value: item, path: child });
      }
    }
  }
  return undefined;
}

/**
 * Money must never be rounded on the way in, and JSON.parse rounds: 21.000000000000001 becomes 21, and 2.1e1
 * loses its exponent (Node 20's JSON.parse gives no access to the literal). So a number literal that a double
 * would not keep exactly as written (an exponent, or more than 15 significant digits) is turned into a string
 * of the same text before parsing; each field's own rules then refuse it, naming the field ("must be written
 * without exponent notation", "must be an integer"). The signature was checked over the bytes as sent. Only a
 * literal that is a JSON number (RFC 8259) is rewritten: anything else (`1e5e5`, `--1`) is left as written, so
 * that JSON.parse refuses the body as every other reader of it would.
 */
const JSON_NUMBER = /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?$/;

function keepInexactNumbersAsWritten(text: string): string {
  let out: string[] | undefined;
  let copiedTo = 0;
  let inString = false;
  for (let i = 0; i < text.length; i += 1) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i += 1;
      else if (c === 0x22) inString = false;
      continue;
    }
    if (c === 0x22) {
      inString = true;
      continue;
    }
    if (c === 0x2d || (c >= 0x30 && c <= 0x39)) {
      let end = i + 1;
      while (end < text.length && /[0-9.eE+-]/.test(text[end]!)) end += 1;
      const literal = text.slice(i, end);
      const digits = literal
        .replace(/^-/, '')
        .replace(/[eE].*$/, '')
        .replace('.', '')
        .replace(/^0+/, '');
      if (JSON_NUMBER.test(literal) && (/[eE]/.test(literal) || digits.length > 15)) {
        out ??= [];
        out.push(text.slice(copiedTo, i), JSON.stringify(literal));
        copiedTo = end;
      }
      i = end - 1;
    }
  }
  if (!out) return text;
  out.push(text.slice(copiedTo));
  return out.join('');
}
