import Type, { type TSchema } from 'typebox';
import { type ErrorDefinition, envelopeCode } from '../platform/errors.js';

export interface SuccessEnvelope<T> {
  code: 200;
  message: string;
  data: T;
}

export interface ErrorEnvelope {
  code: number;
  error_code: string;
  message: string;
  data: null;
}

export function success<T>(data: T): SuccessEnvelope<T> {
  return { code: 200, message: 'success', data };
}

/** Key order matches {@link errorEnvelopeSchema}, so stored and serialised replies are the same bytes. */
export function failure(definition: ErrorDefinition, message = definition.message): ErrorEnvelope {
  return { code: envelopeCode(definition), error_code: definition.code, message, data: null };
}

export function successEnvelopeSchema(data: TSchema): TSchema {
  return Type.Object({
    // A constant, not just an integer: a generator of examples (or a reader) must not take 0 for success.
    code: Type.Literal(200, { description: 'Always 200 on success.' }),
    message: Type.String(),
    data,
  });
}

/** The error envelope of one HTTP status, with the codes a route may answer in it. */
export function errorEnvelopeSchema(errors: readonly ErrorDefinition[]): TSchema {
  const codes = [...new Set(errors.map((error) => error.code))].sort();
  return Type.Object(
    {
      code: Type.Integer({ description: 'The error code as an integer; the HTTP status for text codes.' }),
      error_code: Type.String({ enum: codes, description: 'The error code as text.' }),
      message: Type.String(),
      data: Type.Null(),
    },
    { description: errors.map((error) => `\`${error.code}\`: ${error.message}`).join('\n\n') },
  );
}
