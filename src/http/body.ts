import secureJson from 'secure-json-parse';
import { AppError } from '../platform/errors.js';

const utf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * Decodes a body only after its signature has been checked over the raw bytes: invalid UTF-8 is refused (never
 * replaced), and `__proto__` / `constructor` keys are refused rather than silently dropped.
 */
export function decodeJsonBody(raw: Buffer): unknown {
  const value = parseJson(raw);
  const field = fieldWithNul(value);
  if (field !== undefined) throw new AppError('validationFailed', `${field} must not contain the character U+0000.`);
  return value;
}

function parseJson(raw: Buffer): unknown {
  let text: string;
  try {
    text = utf8.decode(raw);
  } catch {
    throw new AppError('bodyNotUtf8');
  }
  try {
    return secureJson.parse(text, undefined, { protoAction: 'error', constructorAction: 'error' });
  } catch (error) {
    if (error instanceof SyntaxError) {
      if (/prototype property/i.test(error.message)) throw new AppError('bodyForbiddenKey');
      throw new AppError('bodyNotJson', `The request body is not valid JSON: ${error.message}`);
    }
    // A RangeError from nesting too deep to walk is still bad input, not a fault.
    throw new AppError('bodyNotJson', 'The request body is not valid JSON: nested too deeply.');
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
      value.forEach((item, index) => stack.push({ value: item, path: `${path}[${index}]` }));
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
