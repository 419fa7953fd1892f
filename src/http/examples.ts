import type { PaygateClient } from '@paygate/client';
import { success } from './envelope.js';

/**
 * The worked example every operation carries in its declaration: a request it answers with success, the reply's
 * `data`, and the same call three ways (`@paygate/client`, the official PHP SDK where it has the call, and
 * `npx paygate call`). They go into the OpenAPI document (media examples and `x-codeSamples`), which the /docs page
 * shows; test/http/api-examples.test.ts checks each against the route's schemas and the client's own requests.
 */
export interface OperationExample {
  request: ExampleRequest;
  /** `data` of the success envelope (the envelope itself is added by `success`, as the route's reply is). */
  reply?: unknown;
  client?: ClientCall;
  php?: PhpCall;
  /** A command that works without a signature (the operators' routes), instead of the three above. */
  shell?: string;
}

export interface ExampleRequest {
  params?: unknown;
  /** Query parameters as sent (text), in order. */
  query?: Record<string, string>;
  body?: unknown;
}

/** A method of {@link PaygateClient} (`orders.create`) and the arguments the example passes it. */
export interface ClientCall {
  method: string;
  args: readonly unknown[];
}

/**
 * The official PHP SDK (its `PaymentSDK` class, which the platform's plugins ship) has five calls to this API, each
 * taking the request body as one array, each posting to one path of the gateway. Its own address comes from its
 * `environment` option. Operations it has no call for show no PHP.
 */
export const PHP_SDK_CALLS = {
  createPaymentLink: 'POST /svc/payment/api/v1/openapi/orders?with_payment_link=true',
  queryOrder: 'POST /svc/payment/api/v1/openapi/orders/check',
  voidOrder: 'POST /svc/payment/api/v1/openapi/orders/void',
  voidTransaction: 'POST /svc/payment/api/v1/openapi/orders/void',
  refundTransaction: 'POST /svc/payment/api/v1/openapi/orders/refund',
} as const;

export interface PhpCall {
  method: keyof typeof PHP_SDK_CALLS;
  /** The array it is given, when not the example's body (the SDK fills some fields itself). */
  params?: unknown;
  note?: string;
}

// biome-ignore lint/suspicious/noExplicitAny: any client method, whatever its parameters (the examples' arguments are checked by the tests that call them)
type AnyMethod = (...args: any[]) => Promise<unknown>;
type Api =
  | 'customers'
  | 'orders'
  | 'transactions'
  | 'recurring'
  | 'batches'
  | 'balances'
  | 'users'
  | 'cards'
  | 'payees'
  | 'payouts'
  | 'sandbox'
  | 'webhooks'
  | 'inbox'
  | 'faults'
  | 'events'
  | 'labSnapshots'
  | 'labTriggers';
type MethodsOf<T> = { [K in keyof T & string]: T[K] extends AnyMethod ? K : never }[keyof T & string];
export type ClientMethodName = 'echo' | { [A in Api]: `${A}.${MethodsOf<PaygateClient[A]>}` }[Api];
type MethodAt<N extends string> = N extends `${infer A}.${infer M}`
  ? A extends Api
    ? M extends keyof PaygateClient[A]
      ? PaygateClient[A][M]
      : never
    : never
  : N extends keyof PaygateClient
    ? PaygateClient[N]
    : never;

/** A client call, checked by the compiler against the client's own signature. */
export function clientCall<N extends ClientMethodName>(
  method: N,
  ...args: Parameters<Extract<MethodAt<N>, AnyMethod>>
): ClientCall {
  return { method, args };
}

/** Finds the client's method for a call (for the tests that run the examples). */
export function clientMethod(client: PaygateClient, method: string): AnyMethod {
  const [first, second] = method.split('.') as [string, string | undefined];
  const owner = (second === undefined ? client : (client as unknown as Record<string, unknown>)[first]) as
    | Record<string, unknown>
    | undefined;
  const fn = owner?.[second ?? first];
  if (typeof fn !== 'function') throw new Error(`PaygateClient has no method ${method}`);
  return (fn as AnyMethod).bind(owner);
}

export interface CodeSample {
  lang: 'TypeScript' | 'PHP' | 'Shell';
  label: string;
  source: string;
  note?: string;
}

export const SAMPLE_LABELS = {
  client: '@paygate/client',
  php: 'PHP SDK',
  cli: 'npx paygate call',
  shell: 'curl',
} as const;

/** The example's calls as code, in the form of `x-codeSamples` (an OpenAPI extension documentation tools read). */
export function codeSamples(method: string, path: string, example: OperationExample): CodeSample[] {
  if (example.shell !== undefined) return [{ lang: 'Shell', label: SAMPLE_LABELS.shell, source: example.shell }];
  const samples: CodeSample[] = [];
  if (example.client) {
    const call = (spread: boolean) =>
      `await paygate.${example.client!.method}(${example.client!.args.map((arg) => tsLiteral(arg, 0, spread)).join(', ')});`;
    const inline = call(false);
    samples.push({
      lang: 'TypeScript',
      label: SAMPLE_LABELS.client,
      source: inline.length <= LINE ? inline : call(true),
    });
  }
  if (example.php) {
    const source = `$reply = $sdk->${example.php.method}(${phpLiteral(example.php.params ?? example.request.body)});`;
    samples.push({
      lang: 'PHP',
      label: SAMPLE_LABELS.php,
      source,
      ...(example.php.note !== undefined && { note: example.php.note }),
    });
  }
  samples.push({
    lang: 'Shell',
    label: SAMPLE_LABELS.cli,
    source: cliCommand(method, exampleTarget(path, example.request), example.request.body),
  });
  return samples;
}

/** The request target of the example: the path with its parameters filled in, then the query. */
function exampleTarget(path: string, request: ExampleRequest): string {
  const params = (request.params ?? {}) as Record<string, string>;
  const filled = path.replace(/[:{](\w+)\}?/g, (_match, name: string) => {
    const value = params[name];
    if (value === undefined) throw new Error(`the example of ${path} gives no ${name}`);
    return encodeURIComponent(value);
  });
  const query = Object.entries(request.query ?? {})
    .map(([name, value]) => `${name}=${encodeURIComponent(value)}`)
    .join('&');
  return query === '' ? filled : `${filled}?${query}`;
}

function cliCommand(method: string, target: string, body: unknown): string {
  const words = ['npx paygate call', method, shellWord(target)];
  if (body !== undefined) words.push(shellQuote(JSON.stringify(body, null, 2)));
  return words.join(' ');
}

/** Left bare when the shell takes it as it is, single-quoted otherwise. */
function shellWord(text: string): string {
  return /^[\w/.:=@%+,-]+$/.test(text) ? text : shellQuote(text);
}

function shellQuote(text: string): string {
  return `'${text.replace(/'/g, `'\\''`)}'`;
}

const INDENT = '  ';
const IDENTIFIER = /^[A-Za-z_$][\w$]*$/;
const ONE_LINE = 72;
const LINE = 100;

/**
 * A value as a TypeScript literal: single quotes, bare keys where they are identifiers, short objects on one line
 * (unless `spread`: then the outer object takes a line per key).
 */
function tsLiteral(value: unknown, depth = 0, spread = false): string {
  if (typeof value === 'string') return `'${value.replace(/\\/g, '\\\\').replace(/'/g, "\\'").replace(/\n/g, '\\n')}'`;
  if (value === undefined) return 'undefined';
  if (value === null || typeof value !== 'object') return JSON.stringify(value);
  const entries = Array.isArray(value)
    ? value.map((item) => tsLiteral(item, depth + 1))
    : Object.entries(value).map(
        ([key, item]) => `${IDENTIFIER.test(key) ? key : tsLiteral(key)}: ${tsLiteral(item, depth + 1)}`,
      );
  const [open, close] = Array.isArray(value) ? ['[', ']'] : ['{ ', ' }'];
  if (entries.length === 0) return Array.isArray(value) ? '[]' : '{}';
  return layout(entries, open, close, depth, spread && !Array.isArray(value));
}

/** A value as a PHP array literal (`[ 'key' => value ]`); an empty JSON object as `new \stdClass()`. */
function phpLiteral(value: unknown, depth = 0): string {
  if (typeof value === 'string') return `'${value.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
  if (value === null || value === undefined) return 'null';
  if (typeof value !== 'object') return JSON.stringify(value);
  if (!Array.isArray(value) && Object.keys(value).length === 0) return 'new \\stdClass()';
  const entries = Array.isArray(value)
    ? value.map((item) => phpLiteral(item, depth + 1))
    : Object.entries(value).map(([key, item]) => `${phpLiteral(key)} => ${phpLiteral(item, depth + 1)}`);
  return entries.length === 0 ? '[]' : layout(entries, '[', ']', depth);
}

function layout(entries: string[], open: string, close: string, depth: number, spread = false): string {
  const inline = `${open}${entries.join(', ')}${close}`;
  if (!spread && inline.length <= ONE_LINE && !inline.includes('\n')) return inline;
  const inner = INDENT.repeat(depth + 1);
  return `${open.trim()}\n${entries.map((entry) => `${inner}${entry},`).join('\n')}\n${INDENT.repeat(depth)}${close.trim()}`;
}

/**
 * The example as the route's schema carries it into the OpenAPI document: `x-codeSamples` as they are, and
 * `x-paygate-example` (request body, success envelope), which `registerOpenApi` moves to the media examples.
 */
export function exampleExtensions(method: string, path: string, example: OperationExample): Record<string, unknown> {
  return {
    'x-codeSamples': codeSamples(method, path, example),
    // The reply as the route sends it: `success` is what every route's handler answers with.
    [EXAMPLE_KEY]: {
      body: example.request.body,
      reply: example.reply === undefined ? undefined : success(example.reply),
    },
  };
}

export const EXAMPLE_KEY = 'x-paygate-example';
