import { Ajv, type ErrorObject, type Options } from 'ajv';
import addFormatsModule from 'ajv-formats';
import type { FastifySchemaCompiler } from 'fastify';

// ajv-formats is CommonJS with a default export; under NodeNext the callable sits on `.default`.
const addFormats = addFormatsModule as unknown as typeof addFormatsModule.default;

// verbose: errors carry their schema, so a pattern's description can explain the expected form.
const shared: Options = {
  allErrors: false,
  strict: false,
  allowUnionTypes: true,
  removeAdditional: false,
  verbose: true,
};

/** Bodies are JSON and keep their types: a number where text is required is refused, never coerced. */
const bodyAjv = addFormats(new Ajv({ ...shared, coerceTypes: false, useDefaults: false }));
/** Query strings and path parameters are text by nature and are coerced to the declared types. */
const textAjv = addFormats(new Ajv({ ...shared, coerceTypes: 'array', useDefaults: true }));

export const validatorCompiler: FastifySchemaCompiler<unknown> = ({ schema, httpPart }) =>
  (httpPart === 'body' ? bodyAjv : textAjv).compile(schema as object);

type Part = 'body' | 'querystring' | 'params' | 'headers' | string;

/** One clear sentence that names the field, from the first validation error. */
export function describeValidationError(errors: ErrorObject[], part: Part, bodyAbsent: boolean): string {
  const error = pickMostSpecific(errors);
  if (!error) return 'The request is invalid.';
  const field = fieldName(error, part);
  const params = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case 'required':
      if (part === 'body' && bodyAbsent) return 'The request body is required.';
      return `${field} is required.`;
    case 'type': {
      if (part === 'body' && error.instancePath === '' && bodyAbsent) return 'The request body is required.';
      return `${field} must be ${describeType(params.type)}.`;
    }
    case 'maxLength':
      return `${field} must be at most ${params.limit} characters.`;
    case 'minLength':
      return params.limit === 1
        ? `${field} must not be empty.`
        : `${field} must be at least ${params.limit} characters.`;
    case 'enum':
      return `${field} must be one of: ${(params.allowedValues as unknown[]).filter((v) => v !== null).join(', ')}.`;
    case 'const':
      return `${field} must be ${JSON.stringify(params.allowedValue)}.`;
    case 'pattern':
    case 'format':
      return `${field} has an invalid format${error.parentSchema && 'description' in error.parentSchema ? ` (${String(error.parentSchema.description)})` : ''}.`;
    case 'minimum':
    case 'exclusiveMinimum':
    case 'maximum':
    case 'exclusiveMaximum':
      return `${field} must be ${params.comparison} ${params.limit}.`;
    case 'maxItems':
      return `${field} must have at most ${params.limit} items.`;
    case 'minItems':
      return `${field} must have at least ${params.limit} items.`;
    case 'additionalProperties':
      return `${field === 'body' ? 'The body' : field} has an unknown field ${String(params.additionalProperty)}.`;
    default:
      return `${field} ${error.message ?? 'is invalid'}.`;
  }
}

/** `anyOf`/`oneOf` errors say nothing about the field; the branch error before them does. */
function pickMostSpecific(errors: ErrorObject[]): ErrorObject | undefined {
  return errors.find((e) => e.keyword !== 'anyOf' && e.keyword !== 'oneOf' && e.keyword !== 'if') ?? errors[0];
}

function fieldName(error: ErrorObject, part: Part): string {
  const segments = error.instancePath
    .split('/')
    .slice(1)
    .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
  if (error.keyword === 'required')
    segments.push(String((error.params as { missingProperty: string }).missingProperty));
  let path = '';
  for (const segment of segments) path += /^\d+$/.test(segment) ? `[${segment}]` : path ? `.${segment}` : segment;
  if (path) return path;
  return part === 'body' ? 'The request body' : part === 'querystring' ? 'The query string' : `The ${part}`;
}

function describeType(type: unknown): string {
  const names = (Array.isArray(type) ? type : [type]).map((t) => {
    switch (t) {
      case 'string':
        return 'a string';
      case 'integer':
        return 'an integer';
      case 'number':
        return 'a number';
      case 'boolean':
        return 'a boolean';
      case 'object':
        return 'an object';
      case 'array':
        return 'an array';
      case 'null':
        return 'null';
      default:
        return String(t);
    }
  });
  return names.join(' or ');
}
