import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { DEFAULT_PAYMENT_METHODS } from '@paygate/client';
import { CUSTOMER_ERRORS } from '../../src/customers/errors.js';
import { HTTP_ERRORS } from '../../src/http/errors.js';
import { ERRORS } from '../../src/modules.js';
import { PLATFORM_ERRORS } from '../../src/platform/errors.js';
import { signedRaw, startTestServer, type RawReply, type TestMerchant, type TestServer } from '../support/server.js';

/**
 * Signed, hostile requests to every API route: none may get a 5xx or leave the envelope. Inputs come from a
 * seeded generator, so `FUZZ_SEED=<n>` replays a run exactly; every failure message names its seed.
 */
const SEED = Number(process.env.FUZZ_SEED ?? 20260611) >>> 0;
const CASES_PER_ROUTE = 1100;
const CONCURRENCY = 8;
const BODY_LIMIT = 1024 * 1024;
/** The key pollution payloads try to plant on Object.prototype (the server runs in this process). */
const POLLUTION_KEY = 'fuzzPolluted';

const API = '/svc/payment/api/v1';
const CUSTOMERS = `${API}/openapi/customers`;
const STATUS_OF_CODE = new Map<string, number>(Object.values(ERRORS).map((e) => [e.code, e.status]));

// Envelope `code`s, for the inputs whose answer is certain.
const OK = 200;
const NOT_JSON = Number(HTTP_ERRORS.bodyNotJson.code);
const NOT_UTF8 = Number(HTTP_ERRORS.bodyNotUtf8.code);
const FORBIDDEN_KEY = Number(HTTP_ERRORS.bodyForbiddenKey.code);
const TOO_LARGE = Number(HTTP_ERRORS.bodyTooLarge.code);
const INVALID = Number(PLATFORM_ERRORS.validationFailed.code);
const MEDIA_UNSUPPORTED = Number(HTTP_ERRORS.mediaTypeUnsupported.code);
const REQUEST_MALFORMED = Number(HTTP_ERRORS.requestMalformed.code);
const CUSTOMER_NOT_FOUND = Number(CUSTOMER_ERRORS.customerNotFound.code);
/** Nesting deep enough that a recursive walker would overflow the stack. */
const DEEP = 10_000;

interface FuzzCase {
  /** What kind of input this is, for the failure message. */
  label: string;
  target: string;
  body?: string | Buffer;
  /** Envelope codes this input may get, when the input alone decides the answer. */
  expect?: readonly number[];
}

/** What the generators need to know about the server's data. */
interface Fixture {
  customerUuid: string;
  customerReference: string;
  /** A customer of another merchant: must read as not found. */
  foreignCustomerUuid: string;
}

// ---------------------------------------------------------------------------------------------------------
// Seeded randomness

/** mulberry32: tiny and the same on every machine, so a seed always produces the same inputs. */
function mulberry32(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

class Rng {
  private readonly next: () => number;

  constructor(seed: number) {
    this.next = mulberry32(seed);
  }

  /** An integer in [min, max]. */
  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }

  chance(probability: number): boolean {
    return this.next() < probability;
  }

  pick<T>(items: readonly T[]): T {
    return items[this.int(0, items.length - 1)]!;
  }

  /** Calls one of the makers, chosen with the given weights. */
  weighted<T>(choices: ReadonlyArray<readonly [weight: number, make: () => T]>): T {
    let roll = this.next() * choices.reduce((sum, [weight]) => sum + weight, 0);
    for (const [weight, make] of choices) {
      roll -= weight;
      if (roll < 0) return make();
    }
    return choices[choices.length - 1]![1]();
  }

  uuid(): string {
    const hex = Array.from({ length: 32 }, () => this.int(0, 15).toString(16)).join('');
    return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-a${hex.slice(17, 20)}-${hex.slice(20)}`;
  }
}

// ---------------------------------------------------------------------------------------------------------
// JSON text. Bodies are built as text rather than stringified values, so they can hold what no JS value
// serialises to: 1e400, -0, integers past 2^53, duplicate keys, escaped keys.

type Fields = Array<[key: string, json: string]>;

const json = (value: unknown): string => JSON.stringify(value);
const objectText = (fields: Fields): string => `{${fields.map(([key, value]) => `${json(key)}:${value}`).join(',')}}`;
const deepArrays = (depth: number, inner = ''): string => '['.repeat(depth) + inner + ']'.repeat(depth);
const deepObjects = (depth: number, inner = '1'): string => '{"a":'.repeat(depth) + inner + '}'.repeat(depth);
const codePoints = (text: string, max: number): string => [...text].slice(0, max).join('');

const WRONG_TYPES = ['0', '-1', '1.5', 'true', 'false', 'null', '[]', '{}', '["a"]', '{"a":"b"}', '[[[]]]', '[null]'];
const ODD_NUMBERS = [
  '1e400', '-1e400', '-0', '1e-400', '123456789012345678901234567890', '9007199254740993', '-9223372036854775809',
  '0.1e1', '1E+2', '-0.0',
];
const WHOLE_BODY_SCALARS = ['null', '1', '"x"', '[]', 'true', 'false', '0', '-0', '1e400', '""', '{}', '[{}]', '"{}"'];
/** Valid JSON once quoted and short enough for any field, but unkind to whatever stores or prints it. */
const NASTY_TEXT = [
  'a\u0000b', '\u0000', '\u0001\u001f\u007f', '\ud800', '\udfff\ud800', '😀', 'e\u0301', '\u202eevil', '\u200b', '\ufeff',
  "' OR '1'='1", '"; DROP TABLE customers; --', '%s%n%x', '${7*7}', '{{7*7}}', '<script>alert(1)</script>',
  '../../etc/passwd', '\\', '\r\n\t', ' ', '中文字符', '\u00ff\u00fe', '{"__proto__":{}}', '__proto__', 'constructor',
];
const HOSTILE_KEYS = [
  '', ' ', 'NAME', 'name ', '\u0000', 'x'.repeat(10_000), 'constructor', 'prototype', 'hasOwnProperty', 'toString',
  'valueOf', '$ref', '😀', '\ud800',
];
/** Text no JSON parser accepts. */
const NOT_JSON_TEXT = [
  'undefined', 'NaN', 'Infinity', "{'message':'x'}", '{message:"x"}', '{"message":"x",}', '{"message":"x"}/*c*/',
  '// c\n{}', '<xml/>', 'message=x&a=1', '{}{}', '[1,]', '"unterminated', '{"a":01}', '{"a":.5}', '{"a":+1}',
  '{"a":0x10}', '{"a":"\\x"}', '{"a":"\\u12"}', '{"message":"a\tb"}', '{"message":"a\u0000b"}', '\u0000', ' \n\t ',
  '\ufeff', '{"a" "b"}', '{"a":}', '{,}', ']', '}', '\\', 'nul', 'tru',
];
const INVALID_UTF8 = [
  [0xff], [0xfe], [0x80], [0xc3], [0xc0, 0xaf], [0xe0, 0x80, 0xaf], [0xed, 0xa0, 0x80], [0xf4, 0x90, 0x80, 0x80],
  [0xe2, 0x82], [0xf8, 0x88, 0x80, 0x80, 0x80], [0xf0, 0x9f, 0x98],
].map((bytes) => Buffer.from(bytes));

/** A random string of any mix of scripts, surrogates and control characters. */
function randomUnicode(rng: Rng, maxLength: number): string {
  const ranges: ReadonlyArray<readonly [number, number]> = [
    [0x20, 0x7e], [0x00, 0x1f], [0x80, 0x2ff], [0x4e00, 0x9fff], [0xd800, 0xdfff], [0xfff0, 0xffff], [0x1f600, 0x1f64f],
  ];
  const length = rng.int(1, maxLength);
  let text = '';
  while (text.length < length) {
    const [low, high] = rng.pick(ranges);
    text += String.fromCodePoint(rng.int(low, high));
  }
  return text;
}

/** A non-empty string within `max` characters (JSON Schema counts code points), often an unkind one. */
function validText(rng: Rng, max: number): string {
  const text = rng.weighted<string>([
    [3, () => `fuzz-${rng.int(0, 1e9)}`],
    [3, () => rng.pick(NASTY_TEXT)],
    [1, () => 'a'.repeat(max)],
    [1, () => '😀'.repeat(max)],
    [2, () => randomUnicode(rng, max)],
  ]);
  return codePoints(text, max);
}

/** A string around or past the 255 and 6 character limits, or odd in content. */
function hostileString(rng: Rng): string {
  return rng.weighted<string>([
    [1, () => ''],
    [1, () => 'a'.repeat(rng.pick([6, 7, 255, 256]))],
    [1, () => '😀'.repeat(rng.pick([6, 7, 255, 256]))],
    [1, () => 'x'.repeat(rng.int(257, 20_000))],
    [3, () => rng.pick(NASTY_TEXT)],
    [2, () => randomUnicode(rng, 300)],
  ]);
}

/** A value a field should not hold: wrong type, odd number, hostile string, or a wide or deep structure. */
function hostileValue(rng: Rng): string {
  return rng.weighted<string>([
    [4, () => rng.pick(WRONG_TYPES)],
    [2, () => rng.pick(ODD_NUMBERS)],
    [5, () => json(hostileString(rng))],
    [1, () => deepArrays(rng.int(50, 2_000))],
    [1, () => deepObjects(rng.int(50, 2_000))],
    [1, () => `[${Array.from({ length: rng.int(1_000, 20_000) }, (_, i) => i).join(',')}]`],
    [1, () => objectText(Array.from({ length: rng.int(100, 5_000) }, (_, i): [string, string] => [`k${i}`, '1']))],
  ]);
}

// ---------------------------------------------------------------------------------------------------------
// Route bodies

interface BodyModel {
  /** Fields of a body the route accepts. */
  validFields(rng: Rng): Fields;
  /** All fields the route knows, for mutations that set an absent one. */
  knownKeys: readonly string[];
  /** The create route wraps its fields in `customer`. */
  wrapperKey?: string;
  /** The text field that huge strings go into, and the code a valid body with one gets. */
  hugeField: string;
  hugeFieldCode: number;
}

const wrap = (model: BodyModel, fields: Fields): string =>
  model.wrapperKey ? objectText([[model.wrapperKey, objectText(fields)]]) : objectText(fields);

const PROFILE_KEYS = ['name', 'phone', 'email', 'dial_code', 'company_name', 'default_payment_method', 'default_payment_token'];

function validProfile(rng: Rng): Fields {
  const fields: Fields = [['name', json(validText(rng, 255))], ['phone', json(validText(rng, 255))]];
  const optionalText = (key: string, max: number) => {
    if (rng.chance(0.5)) fields.push([key, rng.chance(0.2) ? 'null' : json(validText(rng, max))]);
  };
  optionalText('email', 255);
  optionalText('dial_code', 6);
  optionalText('company_name', 255);
  if (rng.chance(0.5)) fields.push(['default_payment_method', json(rng.pick([...DEFAULT_PAYMENT_METHODS, null]))]);
  // "" means absent and null clears; a real token would be refused, as no customer has one yet.
  if (rng.chance(0.3)) fields.push(['default_payment_token', rng.pick(['null', '""'])]);
  return fields;
}

const echoModel: BodyModel = {
  validFields: (rng) => [['message', json(validText(rng, 500))]],
  knownKeys: ['message'],
  hugeField: 'message',
  hugeFieldCode: OK,
};

const createCustomerModel: BodyModel = {
  // A small pool of references, so that concurrent requests update the same customers.
  validFields: (rng) => [
    ...validProfile(rng),
    ['reference_number', json(rng.chance(0.5) ? `ref-${rng.int(1, 20)}` : validText(rng, 255))],
  ],
  knownKeys: [...PROFILE_KEYS, 'reference_number'],
  wrapperKey: 'customer',
  hugeField: 'name',
  hugeFieldCode: INVALID,
};

const editCustomerModel = (fixture: Fixture): BodyModel => ({
  validFields: (rng) => [
    ...validProfile(rng),
    ...(rng.chance(0.3) ? [['reference_number', json(fixture.customerReference)] as [string, string]] : []),
  ],
  knownKeys: [...PROFILE_KEYS, 'reference_number'],
  hugeField: 'name',
  hugeFieldCode: INVALID,
});

function withField(fields: Fields, key: string, value: string): Fields {
  return [...fields.filter(([k]) => k !== key), [key, value]];
}

/** One to three changes: a field set to a hostile value, dropped, duplicated, or an unknown key added. */
function mutate(rng: Rng, model: BodyModel, fields: Fields): Fields {
  let result = [...fields];
  for (let changes = rng.int(1, 3); changes > 0; changes -= 1) {
    rng.weighted<void>([
      [5, () => { result = withField(result, rng.pick(model.knownKeys), hostileValue(rng)); }],
      [1, () => { result.splice(rng.int(0, Math.max(0, result.length - 1)), 1); }],
      [1, () => { result.push([result.length > 0 ? rng.pick(result)[0] : 'name', hostileValue(rng)]); }],
      [1, () => { result.push([rng.chance(0.5) ? rng.pick(HOSTILE_KEYS) : randomUnicode(rng, 20), hostileValue(rng)]); }],
    ]);
  }
  return result;
}

/** Inserts a member written as raw text (an escaped key, say) at the start of an object body. */
const withRawMember = (bodyText: string, member: string): string => `{${member},${bodyText.slice(1)}`;

function pollutedBody(rng: Rng, model: BodyModel, fields: Fields): { label: string; body: string } {
  const payload = objectText([[POLLUTION_KEY, 'true']]);
  const proto = `{"__proto__":${payload}}`;
  const constructor = `{"constructor":{"prototype":${payload}}}`;
  const depth = rng.int(1, 2_000);
  return rng.weighted<{ label: string; body: string }>([
    [1, () => ({ label: '__proto__ as the whole body', body: proto })],
    [2, () => ({ label: '__proto__ beside the fields', body: wrap(model, [...fields, ['__proto__', payload]]) })],
    [2, () => ({ label: '__proto__ as a field value', body: wrap(model, withField(fields, rng.pick(model.knownKeys), proto)) })],
    [2, () => ({ label: `__proto__ ${depth} deep`, body: wrap(model, [...fields, ['x', deepObjects(depth, proto)]]) })],
    [1, () => ({ label: '__proto__ inside arrays', body: wrap(model, [...fields, ['x', `[[1,${proto}]]`]]) })],
    [1, () => ({ label: 'unicode-escaped __proto__', body: withRawMember(wrap(model, fields), `"\\u005f_pro\\u0074o__":${payload}`) })],
    [2, () => ({ label: 'constructor.prototype', body: wrap(model, [...fields, ['constructor', `{"prototype":${payload}}`]]) })],
    [1, () => ({ label: `constructor.prototype ${depth} deep`, body: wrap(model, [...fields, ['x', deepArrays(depth, constructor)]]) })],
  ]);
}

const HARMLESS_CONSTRUCTORS = ['"x"', '{}', '{"a":1}', '[]', 'null', '{"prototyp":1}'];

/** Look like pollution to a text scan but are harmless: the route answers as for any valid body. */
function pollutionDecoy(rng: Rng, model: BodyModel, fields: Fields): { label: string; body: string } {
  return rng.weighted<{ label: string; body: string }>([
    [1, () => ({ label: 'constructor without prototype', body: wrap(model, [...fields, ['constructor', rng.pick(HARMLESS_CONSTRUCTORS)]]) })],
    [1, () => ({ label: '__proto__ inside a string', body: wrap(model, withField(fields, model.hugeField, json('{"__proto__":{"x":1}}'))) })],
    [1, () => ({ label: 'prototype key alone', body: wrap(model, [...fields, ['prototype', objectText([[POLLUTION_KEY, 'true']])]]) })],
  ]);
}

function withInvalidUtf8(rng: Rng, text: string): { label: string; body: Buffer } {
  const bytes = Buffer.from(text, 'utf8');
  const bad = rng.pick(INVALID_UTF8);
  const at = rng.int(0, bytes.length);
  return {
    label: `invalid UTF-8 ${bad.toString('hex')} at byte ${at}`,
    body: Buffer.concat([bytes.subarray(0, at), bad, bytes.subarray(at)]),
  };
}

/** A valid body's text with one text field grown to fill the body to exactly `size` bytes. */
function bodyOfSize(model: BodyModel, fields: Fields, size: number): string {
  const base = wrap(model, withField(fields, model.hugeField, '""'));
  return wrap(model, withField(fields, model.hugeField, json('x'.repeat(size - Buffer.byteLength(base)))));
}

/** Inputs whose answer is known, sent once to every body route. */
function edgeCases(rng: Rng, model: BodyModel, target: string): FuzzCase[] {
  const fields = model.validFields(rng);
  const deepOrRefused = [INVALID, NOT_JSON];
  return [
    { label: 'no body', target, expect: [INVALID] },
    // Node's client sends an empty body as a chunked one, and without a content type.
    { label: 'empty chunked body', target, body: '', expect: [MEDIA_UNSUPPORTED] },
    { label: 'body of exactly the limit', target, body: bodyOfSize(model, fields, BODY_LIMIT), expect: [model.hugeFieldCode] },
    { label: 'body one byte over the limit', target, body: bodyOfSize(model, fields, BODY_LIMIT + 1), expect: [TOO_LARGE] },
    { label: `${DEEP} nested arrays`, target, body: deepArrays(DEEP), expect: deepOrRefused },
    { label: `${DEEP * 10} nested arrays`, target, body: deepArrays(DEEP * 10), expect: deepOrRefused },
    { label: `${DEEP} nested objects`, target, body: deepObjects(DEEP), expect: deepOrRefused },
    {
      label: `${DEEP} nested arrays in a field`,
      target,
      body: wrap(model, withField(fields, model.hugeField, deepArrays(DEEP))),
      expect: deepOrRefused,
    },
    { label: `${DEEP} unclosed arrays`, target, body: '['.repeat(DEEP), expect: [NOT_JSON] },
    {
      label: `__proto__ ${DEEP} deep`,
      target,
      body: wrap(model, [...fields, ['x', deepObjects(DEEP, `{"__proto__":{"${POLLUTION_KEY}":true}}`)]]),
      expect: [FORBIDDEN_KEY, NOT_JSON],
    },
    ...WHOLE_BODY_SCALARS.map((scalar) => ({ label: `whole body ${scalar}`, target, body: scalar, expect: [INVALID] })),
  ];
}

type BodyInput = Pick<FuzzCase, 'label' | 'body' | 'expect'>;

/** A random hostile body for a route, with the answer it must get when that is certain. */
function randomBodyCase(rng: Rng, model: BodyModel, target: string): FuzzCase {
  const fields = model.validFields(rng);
  const valid = wrap(model, fields);
  const withText = (value: string) => wrap(model, withField(fields, model.hugeField, value));
  const depth = rng.pick([100, 1_000, DEEP, DEEP * 5]);
  const inputs: Array<readonly [number, () => BodyInput]> = [
    [8, () => ({ label: 'valid', body: valid, expect: [OK] })],
    [40, () => ({ label: 'mutated fields', body: wrap(model, mutate(rng, model, fields)) })],
    [2, () => ({ label: 'hostile whole body', body: hostileValue(rng), expect: [INVALID] })],
    [2, () => ({ label: 'scalar whole body', body: rng.pick(WHOLE_BODY_SCALARS), expect: [INVALID] })],
    [2, () => ({ label: `${depth} nested arrays`, body: deepArrays(depth), expect: [INVALID, NOT_JSON] })],
    [2, () => ({ label: `${depth} nested in a field`, body: withText(deepObjects(depth)), expect: [INVALID, NOT_JSON] })],
    [1, () => ({ label: `${depth} unbalanced brackets`, body: deepArrays(depth).slice(0, -1), expect: [NOT_JSON] })],
    [6, () => ({ ...withInvalidUtf8(rng, valid), expect: [NOT_UTF8] })],
    [6, () => ({ ...pollutedBody(rng, model, fields), expect: [FORBIDDEN_KEY] })],
    [3, () => ({ ...pollutionDecoy(rng, model, fields), expect: [OK] })],
    [5, () => ({ label: 'truncated', body: valid.slice(0, rng.int(1, valid.length - 1)), expect: [NOT_JSON] })],
    [3, () => ({ label: 'not JSON', body: rng.pick(NOT_JSON_TEXT), expect: [NOT_JSON] })],
    // '@' can start no JSON text, so random bytes after it are never valid JSON, and may not be UTF-8 either.
    [2, () => ({ label: 'random bytes', body: Buffer.concat([Buffer.from('@'), randomBytes(rng, rng.int(1, 2_000))]), expect: [NOT_JSON, NOT_UTF8] })],
    [2, () => ({ label: 'huge string', body: withText(json(hugeString(rng))), expect: [model.hugeFieldCode] })],
  ];
  const { wrapperKey } = model;
  if (wrapperKey) inputs.push([2, () => ({ label: `hostile ${wrapperKey}`, body: objectText([[wrapperKey, hostileValue(rng)]]), expect: [INVALID] })]);
  const input = rng.weighted(inputs);
  // U+0000 is refused in any string (PostgreSQL text cannot hold it), so a body that is otherwise fine is not.
  const expect = input.expect?.includes(OK) && holdsNul(input.body) ? [INVALID] : input.expect;
  return { ...input, ...(expect ? { expect } : {}), target };
}

function holdsNul(body: string | Buffer | undefined): boolean {
  if (body === undefined) return false;
  try {
    return JSON.stringify(JSON.parse(body.toString())).includes('\\u0000');
  } catch {
    return false;
  }
}

function randomBytes(rng: Rng, length: number): Buffer {
  return Buffer.from(Array.from({ length }, () => rng.int(0, 255)));
}

/** Hundreds of kilobytes, under the body limit. */
function hugeString(rng: Rng): string {
  return rng.chance(0.5) ? 'x'.repeat(rng.int(100_000, 900_000)) : '😀'.repeat(rng.int(25_000, 200_000));
}

function* bodyCases(rng: Rng, model: BodyModel, target: string): Generator<FuzzCase> {
  const edges = edgeCases(rng, model, target);
  yield* edges;
  for (let i = edges.length; i < CASES_PER_ROUTE; i += 1) yield randomBodyCase(rng, model, target);
}

// ---------------------------------------------------------------------------------------------------------
// Paths and query strings. Node's client sends only bytes 0x21-0xff in a path, so anything else is
// percent-encoded; raw 0x80-0xff bytes go out as they are.

const HOSTILE_SEGMENTS = [
  '', '.', '..', '...', '%2e%2e', '%2E%2E%2F%2E%2E', '..%2F..%2Fetc%2Fpasswd', '%2F', '%5C', '\\', '%00', '%', '%Z', '%ZZ',
  '%%', '%C0%AF', '%FF', '%FE%FF', '%E2%82', '%ED%A0%80', '%F4%90%80%80', '%252e%252e', 'é', 'ÿ', '\u007f', '\u0080',
  encodeURIComponent('😀ü中文'), encodeURIComponent('\u202e'), "'", '"', '<script>', '%3Cscript%3E', "'%20OR%201=1--",
  ';', ',', '$', '*', '!', '@', ':', '~', '+', '=', '&', '{', '}', '|', '^', '`', '[', ']', '#', '#frag', 'null',
  'undefined', 'NaN', '0', '-1', '1e400', '__proto__', 'constructor', 'prototype', 'hasOwnProperty', 'toString', 'a/b',
  '/', '//', 'x/..',
];
const SEGMENT_TOKENS = [
  'a', 'Z', '0', '9', '-', '.', '..', '_', '~', '%', '%2F', '%00', '%ZZ', '%20', 'é', 'ÿ', '!', '$', '&', "'", '(', ')',
  '*', '+', ',', ';', '=', ':', '@', '/', '\\', encodeURIComponent('😀'),
];
const HOSTILE_QUERIES = [
  '?', '?a=1', '?&&&', '?==', '?a', '?a=1&a=2&a=3', '?a[]=1&a[]=2', '?a[b][c]=1', `?__proto__[${POLLUTION_KEY}]=1`,
  `?__proto__.${POLLUTION_KEY}=1`, `?constructor[prototype][${POLLUTION_KEY}]=1`, '?__proto__=1', '?%ZZ=1', '?a=%ZZ',
  '?a=%FF', '?a=%C0%AF', '?a=%00', '?%00=%00', '?a=é', `?a=${encodeURIComponent('😀')}`,
  '?uuid=00000000-0000-0000-0000-000000000000', '?a=1#frag', '??', '?/../..', '?a=<script>', `?${'a=1&'.repeat(1_000)}`,
];

function randomSegment(rng: Rng): string {
  let segment = '';
  for (let tokens = rng.int(1, 40); tokens > 0; tokens -= 1) {
    segment += rng.chance(0.2) ? `%${rng.int(0, 255).toString(16).padStart(2, '0')}` : rng.pick(SEGMENT_TOKENS);
  }
  return segment;
}

/** A customer path value that is malformed, disguised (encoded, suffixed) or out of bounds. */
function hostileSegment(rng: Rng, fixture: Fixture): string {
  return rng.weighted<string>([
    [4, () => rng.pick(HOSTILE_SEGMENTS)],
    [4, () => randomSegment(rng)],
    [1, () => rng.pick('aZ%é0'.split('')).repeat(rng.pick([100, 101, 1_000, 8_000, 20_000]))],
    [1, () => `${fixture.customerUuid}${rng.pick(['%00', '.json', '/', '%20', '..', '/..', ';x', '%2F'])}`],
    [1, () => `${rng.pick(['%20', '.', '..%2F', '%00'])}${fixture.customerUuid}`],
    [1, () => fixture.customerUuid.split('').map((c) => `%${c.charCodeAt(0).toString(16)}`).join('')],
  ]);
}

function randomQuery(rng: Rng): string {
  return rng.weighted<string>([
    [5, () => ''],
    [3, () => rng.pick(HOSTILE_QUERIES)],
    [2, () => `?${randomSegment(rng)}=${randomSegment(rng)}`],
    [1, () => `?a=${'x'.repeat(rng.pick([1_000, 8_000, 20_000]))}`],
  ]);
}

function* getCustomerCases(rng: Rng, fixture: Fixture): Generator<FuzzCase> {
  for (let i = 0; i < CASES_PER_ROUTE; i += 1) {
    const query = randomQuery(rng);
    const pick = rng.weighted<{ label: string; segment: string; expect?: number[] }>([
      [3, () => ({ label: 'the customer', segment: fixture.customerUuid, expect: [OK] })],
      [1, () => ({ label: 'upper-case uuid', segment: fixture.customerUuid.toUpperCase(), expect: [CUSTOMER_NOT_FOUND] })],
      [1, () => ({ label: "another merchant's customer", segment: fixture.foreignCustomerUuid, expect: [CUSTOMER_NOT_FOUND] })],
      [1, () => ({ label: 'unknown uuid', segment: rng.uuid(), expect: [CUSTOMER_NOT_FOUND] })],
      [8, () => ({ label: 'hostile path', segment: hostileSegment(rng, fixture) })],
    ]);
    const target = `${CUSTOMERS}/${pick.segment}${query}`;
    const expect = refusedByHttpParser(target) ? [REQUEST_MALFORMED] : pick.expect;
    yield { label: `${pick.label}${query ? ' + hostile query' : ''}`, target, ...(expect ? { expect } : {}) };
  }
}

/**
 * Node's HTTP parser refuses a request line with raw bytes outside 0x21-0x7e, or longer than its 16 KiB header
 * limit, before the router sees it, whatever the path names.
 */
function refusedByHttpParser(target: string): boolean {
  return /[^\x21-\x7e]/.test(target) || target.length > 16 * 1024;
}

/** The edit route's body cases, one in ten sent to a hostile path instead (where the answer varies). */
function* editCustomerCases(rng: Rng, fixture: Fixture): Generator<FuzzCase> {
  const target = `${CUSTOMERS}/${fixture.customerUuid}`;
  const foreign = `${CUSTOMERS}/${fixture.foreignCustomerUuid}`;
  const model = editCustomerModel(fixture);
  const foreignBody = wrap(model, model.validFields(rng));
  yield { label: "valid body, another merchant's customer", target: foreign, body: foreignBody, expect: [CUSTOMER_NOT_FOUND] };
  for (const fuzzCase of bodyCases(rng, model, target)) {
    if (!rng.chance(0.1)) yield fuzzCase;
    else yield { label: `${fuzzCase.label} + hostile path`, target: `${CUSTOMERS}/${hostileSegment(rng, fixture)}`, body: fuzzCase.body };
  }
}

// ---------------------------------------------------------------------------------------------------------
// Checking replies

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Why the reply breaks the envelope contract or the case's expectation; undefined when it is fine. */
function replyProblem(reply: RawReply, fuzzCase: FuzzCase): string | undefined {
  if (reply.status >= 500) return `status ${reply.status}`;
  if (!reply.headers['x-request-id']) return 'no x-request-id header';
  const envelope: unknown = reply.json;
  if (!isRecord(envelope)) return 'the reply is not a JSON object';
  if (!Number.isInteger(envelope.code)) return 'code is not an integer';
  if (reply.status === 200) {
    if (envelope.code !== 200 || !isRecord(envelope.data)) return 'a 200 reply without code 200 and an object as data';
  } else {
    const errorCode = envelope.error_code;
    if (typeof errorCode !== 'string' || !STATUS_OF_CODE.has(errorCode)) return `error_code ${json(errorCode)} is not in ERRORS`;
    if (STATUS_OF_CODE.get(errorCode) !== reply.status) return `status ${reply.status} does not belong to error_code ${errorCode}`;
    if (envelope.data !== null) return 'data is not null';
    if (typeof envelope.message !== 'string') return 'message is not a string';
  }
  if (fuzzCase.expect && !fuzzCase.expect.includes(envelope.code as number)) {
    return `expected code ${fuzzCase.expect.join(' or ')}`;
  }
  return undefined;
}

function preview(data: string | Buffer): string {
  const shown = 160;
  if (typeof data === 'string') return data.length <= shown ? json(data) : `${json(data.slice(0, shown))}… (${data.length} chars)`;
  const bytes = data.subarray(0, shown / 2).toString('hex');
  return data.length <= shown / 2 ? `hex ${bytes}` : `hex ${bytes}… (${data.length} bytes)`;
}

function describeCase(fuzzCase: FuzzCase): string {
  const body = fuzzCase.body === undefined ? '' : ` body ${preview(fuzzCase.body)}`;
  return `[${fuzzCase.label}] target ${preview(fuzzCase.target)}${body}`;
}

/** Runs `work` on every item, `limit` at a time, in the order the iterator gives them. */
async function inParallel<T>(items: Iterator<T>, limit: number, work: (item: T) => Promise<void>): Promise<void> {
  const worker = async () => {
    for (let next = items.next(); !next.done; next = items.next()) await work(next.value);
  };
  await Promise.all(Array.from({ length: limit }, worker));
}

// ---------------------------------------------------------------------------------------------------------

describe(`fuzzing every route with hostile input (FUZZ_SEED=${SEED})`, () => {
  let server: TestServer;
  let merchant: TestMerchant;
  let fixture: Fixture;

  const createCustomer = async (owner: TestMerchant, reference: string): Promise<string> => {
    const body = json({ customer: { name: 'Fuzz Target', phone: '5550100', reference_number: reference } });
    const reply = await signedRaw(server.url, owner, { method: 'POST', target: CUSTOMERS, body });
    assert.equal(reply.status, 200, reply.text);
    return reply.json.data.customer.uuid;
  };

  before(async () => {
    server = await startTestServer();
    merchant = await server.newMerchant();
    const customerReference = 'fuzz-target';
    fixture = {
      customerUuid: await createCustomer(merchant, customerReference),
      customerReference,
      foreignCustomerUuid: await createCustomer(await server.newMerchant({ name: 'Other Merchant' }), 'foreign'),
    };
  });
  after(() => server.close());

  const routes: Array<{ name: string; method: string; cases: (rng: Rng) => Iterable<FuzzCase> }> = [
    { name: 'POST /openapi/echo', method: 'POST', cases: (rng) => bodyCases(rng, echoModel, `${API}/openapi/echo`) },
    { name: 'POST /echo', method: 'POST', cases: (rng) => bodyCases(rng, echoModel, `${API}/echo`) },
    { name: 'POST /openapi/customers', method: 'POST', cases: (rng) => bodyCases(rng, createCustomerModel, CUSTOMERS) },
    { name: 'PUT /openapi/customers/{uuid}', method: 'PUT', cases: (rng) => editCustomerCases(rng, fixture) },
    { name: 'GET /openapi/customers/{uuid}', method: 'GET', cases: (rng) => getCustomerCases(rng, fixture) },
  ];

  routes.forEach((route, routeNumber) => {
    test(`${route.name}: no 5xx and always the envelope`, async (t) => {
      const seed = SEED + routeNumber;
      const cases = route.cases(new Rng(seed))[Symbol.iterator]();
      let sent = 0;
      const statuses = new Map<number, number>();
      const problems: string[] = [];
      await inParallel(cases, CONCURRENCY, async (fuzzCase) => {
        const index = sent;
        sent += 1;
        try {
          const reply = await signedRaw(server.url, merchant, { method: route.method, target: fuzzCase.target, body: fuzzCase.body });
          statuses.set(reply.status, (statuses.get(reply.status) ?? 0) + 1);
          const problem = replyProblem(reply, fuzzCase);
          if (problem) problems.push(`#${index} ${describeCase(fuzzCase)}: ${problem}; got ${reply.status} ${preview(reply.text)}`);
        } catch (error) {
          problems.push(`#${index} ${describeCase(fuzzCase)}: request failed: ${String(error)}`);
        }
      });
      t.diagnostic(`${sent} requests; statuses ${json(Object.fromEntries([...statuses].sort(([a], [b]) => a - b)))}`);
      assert.ok(sent >= 1_000, `FUZZ_SEED=${SEED}: only ${sent} requests to ${route.name}`);
      assert.equal(
        problems.length,
        0,
        `FUZZ_SEED=${SEED} (route seed ${seed}): ${problems.length} of ${sent} replies from ${route.name} were wrong:\n` +
          problems.slice(0, 25).join('\n'),
      );
    });
  });

  test('the server is healthy afterwards and nothing reached Object.prototype', async () => {
    const body = json({ message: 'still here' });
    const echo = await signedRaw(server.url, merchant, { method: 'POST', target: `${API}/openapi/echo`, body });
    assert.equal(echo.status, 200, echo.text);
    assert.equal(echo.json.data.message, 'still here');
    const customer = await signedRaw(server.url, merchant, { method: 'GET', target: `${CUSTOMERS}/${fixture.customerUuid}` });
    assert.equal(customer.status, 200, customer.text);
    assert.equal(customer.json.data.customer.reference_number, fixture.customerReference);
    assert.equal(POLLUTION_KEY in {}, false, `FUZZ_SEED=${SEED}: Object.prototype was polluted`);
  });
});
