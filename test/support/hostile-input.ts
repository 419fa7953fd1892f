/**
 * Seeded hostile input for test/fuzz.test.ts: randomness that a seed replays, JSON text that no JS value
 * serialises to, unkind strings, keys, path segments and query strings.
 */

/** The key pollution payloads try to plant on Object.prototype (the server runs in the test's process). */
export const POLLUTION_KEY = 'fuzzPolluted';

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

export class Rng {
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

  /** Calls one of the makers, chosen with the given weights (a weight of 0 is never chosen). */
  weighted<T>(choices: ReadonlyArray<readonly [weight: number, make: () => T]>): T {
    const offered = choices.filter(([weight]) => weight > 0);
    let roll = this.next() * offered.reduce((sum, [weight]) => sum + weight, 0);
    for (const [weight, make] of offered) {
      roll -= weight;
      if (roll < 0) return make();
    }
    return offered[offered.length - 1]![1]();
  }

  uuid(): string {
    const hex = Array.from({ length: 32 }, () => this.int(0, 15).toString(16)).join('');
    return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-a${hex.slice(17, 20)}-${hex.slice(20)}`;
  }

  bytes(length: number): Buffer {
    return Buffer.from(Array.from({ length }, () => this.int(0, 255)));
  }
}

// ---------------------------------------------------------------------------------------------------------
// JSON text. Bodies are values that may hold pieces of raw text, so they can hold what no JS value serialises
// to: 1e400, -0, integers past 2^53, duplicate keys, escaped keys, `__proto__` members.

/** A value written as this exact JSON text. */
export class RawJson {
  constructor(readonly text: string) {}
}

/** In an object: a member (`"key":value`) written as this exact text, whatever key holds it. */
export class RawMember {
  constructor(readonly text: string) {}
}

export function jsonText(value: unknown): string {
  if (value instanceof RawJson) return value.text;
  if (Array.isArray(value)) return `[${value.map(jsonText).join(',')}]`;
  if (typeof value === 'object' && value !== null) {
    const members = Object.entries(value).map(([key, item]) =>
      item instanceof RawMember ? item.text : `${JSON.stringify(key)}:${jsonText(item)}`,
    );
    return `{${members.join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

export const json = (value: unknown): string => JSON.stringify(value);
export const deepArrays = (depth: number, inner = ''): string => '['.repeat(depth) + inner + ']'.repeat(depth);
export const deepObjects = (depth: number, inner = '1'): string => '{"a":'.repeat(depth) + inner + '}'.repeat(depth);
const codePoints = (text: string, max: number): string => [...text].slice(0, max).join('');
const objectText = (members: Array<[key: string, json: string]>): string =>
  `{${members.map(([key, value]) => `${json(key)}:${value}`).join(',')}}`;

export const WRONG_TYPES = [
  '0',
  '-1',
  '1.5',
  'true',
  'false',
  'null',
  '[]',
  '{}',
  '["a"]',
  '{"a":"b"}',
  '[[[]]]',
  '[null]',
];
export const ODD_NUMBERS = [
  '1e400',
  '-1e400',
  '-0',
  '1e-400',
  '123456789012345678901234567890',
  '9007199254740993',
  '-9223372036854775809',
  '0.1e1',
  '1E+2',
  '-0.0',
];
export const WHOLE_BODY_SCALARS = [
  'null',
  '1',
  '"x"',
  '[]',
  'true',
  'false',
  '0',
  '-0',
  '1e400',
  '""',
  '{}',
  '[{}]',
  '"{}"',
];
/** Valid JSON once quoted and short enough for any field, but unkind to whatever stores or prints it. */
export const NASTY_TEXT = [
  'a\u0000b',
  '\u0000',
  '\u0001\u001f\u007f',
  '\ud800',
  '\udfff\ud800',
  '😀',
  'e\u0301',
  '\u202eevil',
  '\u200b',
  '\ufeff',
  "' OR '1'='1",
  '"; DROP TABLE customers; --',
  '%s%n%x',
  // biome-ignore lint/suspicious/noTemplateCurlyInString: a template injection probe, sent as text on purpose
  '${7*7}',
  '{{7*7}}',
  '<script>alert(1)</script>',
  '../../etc/passwd',
  '\\',
  '\r\n\t',
  ' ',
  '中文字符',
  '\u00ff\u00fe',
  '{"__proto__":{}}',
  '__proto__',
  'constructor',
];
export const HOSTILE_KEYS = [
  '',
  ' ',
  'NAME',
  'name ',
  '\u0000',
  'x'.repeat(10_000),
  'constructor',
  'prototype',
  'hasOwnProperty',
  'toString',
  'valueOf',
  '$ref',
  '😀',
  '\ud800',
];
/** Text no JSON parser accepts. */
export const NOT_JSON_TEXT = [
  'undefined',
  'NaN',
  'Infinity',
  "{'message':'x'}",
  '{message:"x"}',
  '{"message":"x",}',
  '{"message":"x"}/*c*/',
  '// c\n{}',
  '<xml/>',
  'message=x&a=1',
  '{}{}',
  '[1,]',
  '"unterminated',
  '{"a":01}',
  '{"a":.5}',
  '{"a":+1}',
  '{"a":0x10}',
  '{"a":"\\x"}',
  '{"a":"\\u12"}',
  '{"message":"a\tb"}',
  '{"message":"a\u0000b"}',
  '\u0000',
  ' \n\t ',
  '\ufeff',
  '{"a" "b"}',
  '{"a":}',
  '{,}',
  ']',
  '}',
  '\\',
  'nul',
  'tru',
];
export const INVALID_UTF8 = [
  [0xff],
  [0xfe],
  [0x80],
  [0xc3],
  [0xc0, 0xaf],
  [0xe0, 0x80, 0xaf],
  [0xed, 0xa0, 0x80],
  [0xf4, 0x90, 0x80, 0x80],
  [0xe2, 0x82],
  [0xf8, 0x88, 0x80, 0x80, 0x80],
  [0xf0, 0x9f, 0x98],
].map((bytes) => Buffer.from(bytes));

/** A random string of any mix of scripts, surrogates and control characters. */
export function randomUnicode(rng: Rng, maxLength: number): string {
  const ranges: ReadonlyArray<readonly [number, number]> = [
    [0x20, 0x7e],
    [0x00, 0x1f],
    [0x80, 0x2ff],
    [0x4e00, 0x9fff],
    [0xd800, 0xdfff],
    [0xfff0, 0xffff],
    [0x1f600, 0x1f64f],
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
export function validText(rng: Rng, max: number): string {
  const text = rng.weighted<string>([
    [3, () => `fuzz-${rng.int(0, 1e9)}`],
    [3, () => rng.pick(NASTY_TEXT)],
    [1, () => 'a'.repeat(max)],
    [1, () => '😀'.repeat(max)],
    [2, () => randomUnicode(rng, max)],
  ]);
  return codePoints(text, max);
}

/** A string around or past common limits (6, 64, 128, 255 characters), or odd in content. */
export function hostileString(rng: Rng): string {
  return rng.weighted<string>([
    [1, () => ''],
    [1, () => 'a'.repeat(rng.pick([6, 7, 64, 65, 128, 129, 255, 256]))],
    [1, () => '😀'.repeat(rng.pick([6, 7, 255, 256]))],
    [1, () => 'x'.repeat(rng.int(257, 20_000))],
    [3, () => rng.pick(NASTY_TEXT)],
    [2, () => randomUnicode(rng, 300)],
  ]);
}

/**
 * JSON text of a value a field should not hold: wrong type, odd number, hostile string, or a wide or deep structure.
 */
export function hostileValue(rng: Rng): string {
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

/** Hundreds of kilobytes, under the body limit. */
export function hugeString(rng: Rng): string {
  return rng.chance(0.5) ? 'x'.repeat(rng.int(100_000, 900_000)) : '😀'.repeat(rng.int(25_000, 200_000));
}

/** `text` with invalid UTF-8 bytes put in at a random place. */
export function withInvalidUtf8(rng: Rng, text: string): { label: string; body: Buffer } {
  const bytes = Buffer.from(text, 'utf8');
  const bad = rng.pick(INVALID_UTF8);
  const at = rng.int(0, bytes.length);
  return {
    label: `invalid UTF-8 ${bad.toString('hex')} at byte ${at}`,
    body: Buffer.concat([bytes.subarray(0, at), bad, bytes.subarray(at)]),
  };
}

// ---------------------------------------------------------------------------------------------------------
// Prototype pollution: members that must be refused wherever they sit, and decoys that only look like them.

const POLLUTION_PAYLOAD = `{"${POLLUTION_KEY}":true}`;
export const PROTO_OBJECT = `{"__proto__":${POLLUTION_PAYLOAD}}`;
const CONSTRUCTOR_OBJECT = `{"constructor":{"prototype":${POLLUTION_PAYLOAD}}}`;

/** A polluting member (raw text) to put in an object of the body, or a whole polluting body. */
export function pollutingMember(rng: Rng): { label: string; member: string } {
  const depth = rng.int(1, 2_000);
  return rng.weighted<{ label: string; member: string }>([
    [2, () => ({ label: '__proto__ beside the fields', member: `"__proto__":${POLLUTION_PAYLOAD}` })],
    [2, () => ({ label: `__proto__ ${depth} deep`, member: `"x":${deepObjects(depth, PROTO_OBJECT)}` })],
    [1, () => ({ label: '__proto__ inside arrays', member: `"x":[[1,${PROTO_OBJECT}]]` })],
    [1, () => ({ label: 'unicode-escaped __proto__', member: `"\\u005f_pro\\u0074o__":${POLLUTION_PAYLOAD}` })],
    [2, () => ({ label: 'constructor.prototype', member: `"constructor":{"prototype":${POLLUTION_PAYLOAD}}` })],
    [
      1,
      () => ({ label: `constructor.prototype ${depth} deep`, member: `"x":${deepArrays(depth, CONSTRUCTOR_OBJECT)}` }),
    ],
  ]);
}

/** Members that look like pollution to a text scan but are harmless. */
export function decoyMember(rng: Rng): { label: string; key: string; value: unknown } {
  return rng.weighted<{ label: string; key: string; value: unknown }>([
    [
      1,
      () => ({
        label: 'constructor without prototype',
        key: 'constructor',
        value: rng.pick(['x', {}, { a: 1 }, [], null, { prototyp: 1 }]),
      }),
    ],
    [1, () => ({ label: 'prototype key alone', key: 'prototype', value: { [POLLUTION_KEY]: true } })],
  ]);
}

/** Text holding `__proto__` inside a string: harmless. */
export const PROTO_IN_TEXT = '{"__proto__":{"x":1}}';

// ---------------------------------------------------------------------------------------------------------
// Paths and query strings. Node's client sends only bytes 0x21-0xff in a path, so anything else is
// percent-encoded; raw 0x80-0xff bytes go out as they are.

export const HOSTILE_SEGMENTS = [
  '',
  '.',
  '..',
  '...',
  '%2e%2e',
  '%2E%2E%2F%2E%2E',
  '..%2F..%2Fetc%2Fpasswd',
  '%2F',
  '%5C',
  '\\',
  '%00',
  '%',
  '%Z',
  '%ZZ',
  '%%',
  '%C0%AF',
  '%FF',
  '%FE%FF',
  '%E2%82',
  '%ED%A0%80',
  '%F4%90%80%80',
  '%252e%252e',
  'é',
  'ÿ',
  '\u007f',
  '\u0080',
  encodeURIComponent('😀ü中文'),
  encodeURIComponent('\u202e'),
  "'",
  '"',
  '<script>',
  '%3Cscript%3E',
  "'%20OR%201=1--",
  ';',
  ',',
  '$',
  '*',
  '!',
  '@',
  ':',
  '~',
  '+',
  '=',
  '&',
  '{',
  '}',
  '|',
  '^',
  '`',
  '[',
  ']',
  '#',
  '#frag',
  'null',
  'undefined',
  'NaN',
  '0',
  '-1',
  '1e400',
  '__proto__',
  'constructor',
  'prototype',
  'hasOwnProperty',
  'toString',
  'a/b',
  '/',
  '//',
  'x/..',
  'uuid',
];
const SEGMENT_TOKENS = [
  'a',
  'Z',
  '0',
  '9',
  '-',
  '.',
  '..',
  '_',
  '~',
  '%',
  '%2F',
  '%00',
  '%ZZ',
  '%20',
  'é',
  'ÿ',
  '!',
  '$',
  '&',
  "'",
  '(',
  ')',
  '*',
  '+',
  ',',
  ';',
  '=',
  ':',
  '@',
  '/',
  '\\',
  encodeURIComponent('😀'),
];
export const HOSTILE_QUERIES = [
  '?',
  '?a=1',
  '?&&&',
  '?==',
  '?a',
  '?a=1&a=2&a=3',
  '?a[]=1&a[]=2',
  '?a[b][c]=1',
  `?__proto__[${POLLUTION_KEY}]=1`,
  `?__proto__.${POLLUTION_KEY}=1`,
  `?constructor[prototype][${POLLUTION_KEY}]=1`,
  '?__proto__=1',
  '?%ZZ=1',
  '?a=%ZZ',
  '?a=%FF',
  '?a=%C0%AF',
  '?a=%00',
  '?%00=%00',
  '?a=é',
  `?a=${encodeURIComponent('😀')}`,
  '?uuid=00000000-0000-0000-0000-000000000000',
  '?a=1#frag',
  '??',
  '?/../..',
  '?a=<script>',
  `?${'a=1&'.repeat(1_000)}`,
];

function randomSegment(rng: Rng): string {
  let segment = '';
  for (let tokens = rng.int(1, 40); tokens > 0; tokens -= 1) {
    segment += rng.chance(0.2) ? `%${rng.int(0, 255).toString(16).padStart(2, '0')}` : rng.pick(SEGMENT_TOKENS);
  }
  return segment;
}

/** A path value that is malformed, disguised (encoded, suffixed) or out of bounds; `own` is a good one. */
export function hostileSegment(rng: Rng, own: string): string {
  return rng.weighted<string>([
    [4, () => rng.pick(HOSTILE_SEGMENTS)],
    [4, () => randomSegment(rng)],
    [1, () => rng.pick('aZ%é0'.split('')).repeat(rng.pick([100, 101, 1_000, 8_000, 20_000]))],
    [1, () => `${own}${rng.pick(['%00', '.json', '/', '%20', '..', '/..', ';x', '%2F'])}`],
    [1, () => `${rng.pick(['%20', '.', '..%2F', '%00'])}${own}`],
    [
      1,
      () =>
        own
          .split('')
          .map((c) => `%${c.charCodeAt(0).toString(16).padStart(2, '0')}`)
          .join(''),
    ],
  ]);
}

/** A query string (with its `?`) that is malformed, polluting, huge, or empty. */
export function randomQuery(rng: Rng): string {
  return rng.weighted<string>([
    [5, () => ''],
    [3, () => rng.pick(HOSTILE_QUERIES)],
    [2, () => `?${randomSegment(rng)}=${randomSegment(rng)}`],
    [1, () => `?a=${'x'.repeat(rng.pick([1_000, 8_000, 20_000]))}`],
  ]);
}

/**
 * Node's HTTP parser refuses a request line with raw bytes outside 0x21-0x7e, or longer than its 16 KiB header
 * limit, before the router sees it, whatever the path names.
 */
export function refusedByHttpParser(target: string): boolean {
  return /[^\x21-\x7e]/.test(target) || target.length > 16 * 1024;
}
