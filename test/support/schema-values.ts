import { Ajv, type ValidateFunction } from 'ajv';
import { NASTY_TEXT, type Rng, validText } from './hostile-input.js';
import {
  isRecord,
  type JsonSchema,
  type Operation,
  type OperationRequest,
  type SchemaSite,
  typesOf,
} from './openapi-document.js';

/**
 * Values for one place of a request, chosen from its documented schema: every JSON type, the edges of its
 * lengths, ranges and item counts (one inside, one outside), enum members and near misses, absent. Whether a
 * request then breaks the documented schema is judged by `SchemaJudge`, from the document alone.
 */

export interface Candidate {
  label: string;
  /** undefined: the value is removed. */
  value: unknown;
}

/** JSON Schema counts characters as code points: an emoji is one character but two UTF-16 units. */
const text = (unit: string, length: number) => unit.repeat(Math.max(0, length));
/** Numbers JSON.stringify writes exactly as JSON.parse reads them back (the server keeps longer ones as text). */
const EXACT_LIMIT = 999_999_999_999_999;

export function bodyCandidates(rng: Rng, site: SchemaSite): Candidate[] {
  const { schema } = site;
  const candidates: Candidate[] = [
    { label: 'absent', value: undefined },
    { label: 'null', value: null },
    { label: 'an integer', value: 7 },
    { label: 'zero', value: 0 },
    { label: 'a negative integer', value: -1 },
    { label: 'a fraction', value: 1.5 },
    { label: 'true', value: true },
    { label: 'false', value: false },
    { label: 'text', value: 'x' },
    { label: 'empty text', value: '' },
    { label: 'nasty text', value: rng.pick(NASTY_TEXT) },
    { label: 'an empty array', value: [] },
    { label: 'an array of text', value: ['a'] },
    { label: 'an empty object', value: {} },
    { label: 'an object', value: { a: 1 } },
  ];
  candidates.push(...lengthEdges(schema), ...rangeEdges(schema), ...enumEdges(schema));
  if (schema.pattern !== undefined) candidates.push({ label: 'text off the pattern', value: 'not-the-pattern' });
  if (typesOf(schema).has('string'))
    candidates.push({ label: 'text within the limits', value: validText(rng, schema.maxLength ?? 255) });
  if (typesOf(schema).has('array')) {
    const limit = schema.maxItems ?? 0;
    if (schema.maxItems !== undefined)
      candidates.push({ label: `${limit + 1} items`, value: Array.from({ length: limit + 1 }, () => ({})) });
  }
  return candidates;
}

/** Query and path values arrive as text; the server coerces them to the documented type. */
export function textCandidates(rng: Rng, site: SchemaSite): Candidate[] {
  const { schema } = site;
  const candidates: Candidate[] = [
    { label: 'absent', value: undefined },
    { label: 'empty', value: '' },
    { label: 'letters', value: 'abc' },
    { label: 'a fraction', value: '1.5' },
    { label: 'minus one', value: '-1' },
    { label: 'zero', value: '0' },
    { label: 'one', value: '1' },
    { label: 'true', value: 'true' },
    { label: 'TRUE', value: 'TRUE' },
    { label: 'null', value: 'null' },
    { label: 'huge number', value: '1e400' },
    { label: 'nasty text', value: rng.pick(NASTY_TEXT) },
    { label: 'text within the limits', value: validText(rng, schema.maxLength ?? 255) },
    { label: 'repeated', value: ['1', '2'] },
  ];
  for (const { label, value } of [...lengthEdges(schema), ...rangeEdges(schema), ...enumEdges(schema)]) {
    candidates.push({ label, value: String(value) });
  }
  return candidates;
}

/**
 * For one place: a value of a JSON type the schema does not admit (text for one read from text), and each
 * value just past a documented limit.
 */
export function limitBreakers(site: SchemaSite, readAsText: boolean): Candidate[] {
  const { schema } = site;
  const types = typesOf(schema);
  const breakers: Candidate[] = [];
  const wrongType = readAsText
    ? types.has('string')
      ? undefined
      : { label: 'letters', value: 'abc' }
    : WRONG_TYPE_VALUES.find(({ type }) => !types.has(type) && !(type === 'integer' && types.has('number')));
  if (wrongType) breakers.push({ label: `of a wrong type: ${wrongType.label}`, value: wrongType.value });
  if (typesOf(schema).has('string')) {
    if (schema.minLength !== undefined && schema.minLength > 0)
      breakers.push({
        label: `${schema.minLength - 1} characters (minLength ${schema.minLength})`,
        value: text('a', schema.minLength - 1),
      });
    if (schema.maxLength !== undefined)
      breakers.push({
        label: `${schema.maxLength + 1} emoji (maxLength ${schema.maxLength})`,
        value: text('😀', schema.maxLength + 1),
      });
  }
  if (schema.minimum !== undefined)
    breakers.push({ label: `${schema.minimum - 1} (minimum ${schema.minimum})`, value: schema.minimum - 1 });
  if (schema.maximum !== undefined)
    breakers.push({ label: `${schema.maximum + 1} (maximum ${schema.maximum})`, value: schema.maximum + 1 });
  if (schema.maxItems !== undefined)
    breakers.push({
      label: `${schema.maxItems + 1} items`,
      value: Array.from({ length: schema.maxItems + 1 }, () => ({})),
    });
  if (schema.enum) breakers.push({ label: 'not an enum member', value: 'not-a-member' });
  if (site.required) breakers.push({ label: 'absent though required', value: undefined });
  return readAsText
    ? breakers.map(({ label, value }) => ({ label, value: value === undefined ? undefined : String(value) }))
    : breakers;
}

const WRONG_TYPE_VALUES: ReadonlyArray<{ type: string; label: string; value: unknown }> = [
  { type: 'object', label: 'an object', value: { a: 1 } },
  { type: 'array', label: 'an array', value: ['a'] },
  { type: 'string', label: 'text', value: 'x' },
  { type: 'integer', label: 'an integer', value: 7 },
  { type: 'number', label: 'a fraction', value: 1.5 },
  { type: 'boolean', label: 'true', value: true },
  { type: 'null', label: 'null', value: null },
];

function lengthEdges(schema: JsonSchema): Candidate[] {
  if (!typesOf(schema).has('string')) return [];
  const edges: Candidate[] = [];
  for (const [limit, name] of [
    [schema.minLength, 'minLength'],
    [schema.maxLength, 'maxLength'],
  ] as const) {
    if (limit === undefined) continue;
    for (const length of [limit - 1, limit, limit + 1]) {
      if (length < 0) continue;
      edges.push({ label: `${length} characters (${name} ${limit})`, value: text('a', length) });
      edges.push({ label: `${length} emoji (${name} ${limit})`, value: text('😀', length) });
    }
  }
  return edges;
}

function rangeEdges(schema: JsonSchema): Candidate[] {
  const types = typesOf(schema);
  if (!types.has('number') && !types.has('integer')) return [];
  const edges: Candidate[] = [];
  for (const [limit, name] of [
    [schema.minimum, 'minimum'],
    [schema.maximum, 'maximum'],
  ] as const) {
    if (limit === undefined) continue;
    for (const value of [limit - 1, limit, limit + 1, limit + 0.5]) {
      if (Math.abs(value) <= EXACT_LIMIT) edges.push({ label: `${value} (${name} ${limit})`, value });
    }
  }
  edges.push({ label: 'a large integer', value: EXACT_LIMIT });
  return edges;
}

function enumEdges(schema: JsonSchema): Candidate[] {
  if (!schema.enum) return [];
  const members = schema.enum.filter((member): member is string => typeof member === 'string');
  return [
    ...members.map((member) => ({ label: `enum member ${member}`, value: member })),
    ...members.map((member) => ({ label: `enum member ${member} in upper case`, value: member.toUpperCase() })),
    ...members.map((member) => ({ label: `enum member ${member} with a space`, value: `${member} ` })),
    { label: 'not an enum member', value: 'not-a-member' },
  ];
}

// ---------------------------------------------------------------------------------------------------------

/**
 * Whether a request breaks the operation's documented schema, judged as the document says the server reads
 * requests: a JSON body keeps its types; query and path values are text, coerced to the documented type, with
 * documented defaults filled in.
 */
export class SchemaJudge {
  private readonly bodyAjv = new Ajv({ strict: false, allowUnionTypes: true, coerceTypes: false, useDefaults: false });
  private readonly textAjv = new Ajv({ strict: false, allowUnionTypes: true, coerceTypes: 'array', useDefaults: true });
  private readonly validators = new Map<
    string,
    { body?: ValidateFunction; query: ValidateFunction; path: ValidateFunction }
  >();

  /** True when the request breaks the schema; the body must be the value the server will decode. */
  violates(operation: Operation, request: OperationRequest): boolean {
    const { body, query, path } = this.validatorsOf(operation);
    if (!path(structuredClone(request.path))) return true;
    if (!query(structuredClone(request.query))) return true;
    // A body the operation may be called without is, left out, no violation (the server takes it as `{}`).
    if (request.body === undefined && !operation.bodyRequired) return false;
    return body !== undefined && !body(request.body);
  }

  private validatorsOf(operation: Operation) {
    let validators = this.validators.get(operation.operationId);
    if (!validators) {
      const objectOf = (parameters: Operation['pathParameters']) =>
        this.textAjv.compile({
          type: 'object',
          properties: Object.fromEntries(parameters.map((parameter) => [parameter.name, parameter.schema])),
          required: parameters.filter((parameter) => parameter.required).map((parameter) => parameter.name),
        });
      validators = {
        ...(operation.body && { body: this.bodyAjv.compile(operation.body) }),
        query: objectOf(operation.queryParameters),
        path: objectOf(operation.pathParameters),
      };
      this.validators.set(operation.operationId, validators);
    }
    return validators;
  }
}

/**
 * The value the server decodes from this body text, when the test can know it exactly: the text must be what
 * JSON.stringify writes for it (no duplicate keys, no number the server would keep as written text).
 */
export function exactValueOf(text: string): { value: unknown } | undefined {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (JSON.stringify(value) !== text || !numbersAreExact(value)) return undefined;
  return { value };
}

function numbersAreExact(value: unknown): boolean {
  const stack = [value];
  while (stack.length > 0) {
    const item = stack.pop();
    if (
      typeof item === 'number' &&
      (Math.abs(item) > EXACT_LIMIT || /e/i.test(String(item)) || significantDigits(item) > 15)
    )
      return false;
    if (Array.isArray(item)) stack.push(...item);
    else if (isRecord(item)) stack.push(...Object.values(item));
  }
  return true;
}

function significantDigits(number: number): number {
  return String(Math.abs(number)).replace('.', '').replace(/^0+/, '').length;
}

/** True when a string (or a key) anywhere in the value holds U+0000, which every field refuses. */
export function holdsNul(value: unknown): boolean {
  const stack = [value];
  while (stack.length > 0) {
    const item = stack.pop();
    if (typeof item === 'string' && item.includes('\u0000')) return true;
    if (Array.isArray(item)) stack.push(...item);
    else if (isRecord(item)) stack.push(...Object.keys(item), ...Object.values(item));
  }
  return false;
}
