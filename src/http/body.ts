import secureJson from 'secure-json-parse';
import { AppError } from '../platform/errors.js';

const utf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * Decodes a body only after its signature has been checked over the raw bytes: invalid UTF-8 is refused (never
 * replaced), and `__proto__` / `constructor` keys are refused rather than silently dropped.
 */
export function decodeJsonBody(raw: Buffer): unknown {
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
