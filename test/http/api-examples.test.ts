import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { PaygateClient } from '@paygate/client';
import type { TSchema } from 'typebox';
import { type CodeSample, clientMethod, PHP_SDK_CALLS, SAMPLE_LABELS } from '../../src/http/examples.js';
import type { AnyRoute } from '../../src/http/route.js';
import { validatorCompiler } from '../../src/http/validation.js';
import { modulesFor } from '../../src/modules.js';
import { TEST_PRIVATE_KEY } from '../support/keys.js';
import { rawRequest, startTestServer, type TestMerchant, type TestServer } from '../support/server.js';

// The worked example each route declares (issue 11, point 7), as the OpenAPI document carries it and the API
// reference at /docs shows it: a request that works, its success reply in the envelope the route really sends
// (code 200, never the 0 a generator makes up from `integer`), and the same call with @paygate/client, the
// official PHP SDK where it has the call, and `npx paygate call`.

const ROUTES: AnyRoute[] = modulesFor('sandbox').flatMap((module) => module.routes ?? []);

interface Media {
  example?: unknown;
}
interface Operation {
  operationId: string;
  requestBody?: { content: Record<string, Media> };
  responses: Record<string, { content?: Record<string, Media> }>;
  'x-codeSamples'?: CodeSample[];
  'x-alias-of'?: string;
}
interface Document {
  paths: Record<string, Record<string, Operation>>;
}

describe('the worked examples of the API reference', () => {
  let server: TestServer;
  let merchant: TestMerchant;
  let document: Document;
  const operation = (operationId: string): Operation => {
    const found = Object.values(document.paths)
      .flatMap((methods) => Object.values(methods))
      .find((op) => op.operationId === operationId);
    assert.ok(found, `the document has ${operationId}`);
    return found;
  };
  const sample = (operationId: string, label: string): string => {
    const found = operation(operationId)['x-codeSamples']?.find((candidate) => candidate.label === label);
    assert.ok(found, `${operationId} has a ${label} example`);
    return found.source;
  };

  before(async () => {
    server = await startTestServer();
    merchant = await server.newMerchant({ name: 'Kowloon Coffee Roasters' });
    document = (await rawRequest(server.url, { method: 'GET', target: '/openapi.json' })).json as Document;
  });
  after(() => server.close());

  test('every operation of the document has its success reply in the envelope the routes answer with: code 200, as live', async () => {
    const live = (
      await server.client(merchant).send('POST', '/svc/payment/api/v1/openapi/echo', { message: 'Hello, paygate' })
    ).json as { code: number; message: string };
    assert.equal(live.code, 200);
    let operations = 0;
    for (const [path, methods] of Object.entries(document.paths)) {
      for (const [method, op] of Object.entries(methods)) {
        if (op.operationId === 'metrics') continue; // Prometheus text, no envelope.
        if (op['x-alias-of'] !== undefined) continue; // Documented beside its operation.
        operations += 1;
        const where = `${method.toUpperCase()} ${path}`;
        const file = Object.entries(op.responses['200']?.content ?? {}).find(([type]) => type !== 'application/json');
        if (file && op.responses['200']?.content?.['application/json'] === undefined) {
          // A file (result.csv): its example is the file itself, as the route answers it.
          const declared = ROUTES.find((route) => route.operationId === op.operationId);
          assert.equal(typeof file[1].example, 'string', `${where} has an example of its file`);
          assert.equal(file[1].example, declared?.example.reply, where);
          continue;
        }
        const reply = op.responses['200']?.content?.['application/json']?.example as
          | { code: number; message: string; data: unknown }
          | undefined;
        assert.ok(reply, `${where} has a success example`);
        assert.deepEqual(Object.keys(reply), ['code', 'message', 'data'], where);
        assert.equal(reply.code, live.code, `${where}: code ${live.code}, as a live reply`);
        assert.equal(reply.message, live.message, where);
        assert.ok(reply.data !== null && typeof reply.data === 'object', where);
        assert.ok((op['x-codeSamples'] ?? []).length > 0, `${where} has code samples`);
        const declared = ROUTES.find((route) => route.operationId === op.operationId);
        if (declared) assert.deepEqual(reply.data, declared.example.reply, `${where} carries its route's example`);
        if (declared?.body)
          assert.deepEqual(op.requestBody?.content['application/json']?.example, declared.example.request.body, where);
      }
    }
    assert.ok(operations > ROUTES.length, "every route, and the operators' own");
  });

  test('each signed operation is shown with @paygate/client, the PHP SDK where it has the call, and npx paygate call', () => {
    for (const route of ROUTES) {
      const labels = (operation(route.operationId)['x-codeSamples'] ?? []).map((s) => s.label);
      assert.deepEqual(
        labels,
        [SAMPLE_LABELS.client, ...(route.example.php ? [SAMPLE_LABELS.php] : []), SAMPLE_LABELS.cli],
        route.operationId,
      );
      assert.ok(
        sample(route.operationId, SAMPLE_LABELS.client).startsWith(`await paygate.${route.example.client!.method}(`),
      );
      if (route.example.php)
        assert.ok(
          sample(route.operationId, SAMPLE_LABELS.php).startsWith(`$reply = $sdk->${route.example.php.method}([`),
        );
    }
    // The SDK's calls, each on the operation it sends (its voidTransaction goes to orders/void as well).
    assert.deepEqual(
      ROUTES.filter((route) => route.example.php)
        .map((route) => route.example.php!.method)
        .sort(),
      ['createPaymentLink', 'queryOrder', 'refundTransaction', 'voidOrder'],
    );
  });

  test("the examples fit their routes: requests and replies pass the route's schemas, each call sends its operation", async () => {
    for (const route of ROUTES) {
      const { example } = route;
      const id = route.operationId;
      const paths = [route.url, ...(route.aliases ?? [])];
      if (route.body) assertValid(route.body, 'body', example.request.body, `${id}: the example's body`);
      else assert.equal(example.request.body, undefined, `${id} takes no body`);
      if (route.params)
        assertValid(route.params, 'params', example.request.params, `${id}: the example's path parameters`);
      if (example.request.query) {
        assert.ok(route.querystring, `${id} takes a query`);
        assertValid(route.querystring, 'querystring', { ...example.request.query }, `${id}: the example's query`);
      }
      assertValid(
        strict(route.data),
        'body',
        example.reply,
        `${id}: the example's reply (no field a real reply would not carry)`,
      );

      // The client call sends this operation, with a body the route takes.
      const sent = await recordClientCall(example.client!.method, example.client!.args, example.reply);
      assert.equal(sent.method, route.method, id);
      assert.ok(
        paths.some((url) => matches(url, sent.path)),
        `${id}: the client call sends ${sent.path}`,
      );
      if (route.body) assertValid(route.body, 'body', sent.body, `${id}: the client call's body`);

      // The shell example is the example's request, word for word.
      const [call, method, target, body, ...rest] = shellWords(sample(id, SAMPLE_LABELS.cli));
      assert.equal(call, 'npx paygate call', id);
      assert.equal(method, route.method, id);
      assert.equal(rest.length, 0, id);
      const url = new URL(target!, 'http://x');
      assert.ok(matches(route.url, url.pathname), `${id}: ${target}`);
      assert.deepEqual(Object.fromEntries(url.searchParams), example.request.query ?? {}, id);
      assert.deepEqual(body === undefined ? undefined : JSON.parse(body), example.request.body, id);

      // The PHP SDK's call posts to this path, with an array the route takes.
      if (example.php) {
        const [phpMethod, phpTarget] = PHP_SDK_CALLS[example.php.method].split(' ') as [string, string];
        assert.equal(phpMethod, route.method, id);
        assert.equal(
          phpTarget.split('?')[0],
          route.url,
          `${id}: the SDK's ${example.php.method} posts to ${phpTarget}`,
        );
        assertValid(route.body!, 'body', example.php.params ?? example.request.body, `${id}: the PHP SDK's array`);
      }
    }
  });

  test('the examples work: the shell and client examples of calls that need nothing made before succeed', async () => {
    const client = server.client(merchant);
    for (const id of ['echo', 'createCustomer', 'createOrder', 'readSandboxClock', 'listOrders']) {
      const route = ROUTES.find((candidate) => candidate.operationId === id)!;
      // The shell example, as `paygate call` sends it: the target and the body's bytes as written.
      const [, method, target, body] = shellWords(sample(id, SAMPLE_LABELS.cli));
      const reply = await client.send(method!, target!, undefined, { rawBody: body ?? '' });
      assert.equal(reply.status, 200, `${id}: ${reply.text}`);
      const envelope = reply.json as { code: number; data: unknown };
      assert.equal(envelope.code, 200, id);
      assertSameShape(envelope.data, route.example.reply, `${id}: data`);
      // The client example, called for real (the order and the customer again: the same content returns them).
      await clientMethod(client, route.example.client!.method)(...route.example.client!.args);
    }
  });

  test("the operators' unsigned routes are shown as a plain request to this server", () => {
    for (const id of ['health', 'ready', 'metrics']) {
      assert.match(sample(id, SAMPLE_LABELS.shell), /^curl http:\/\/127\.0\.0\.1:\d+\/(healthz|readyz|metrics)$/);
    }
  });
});

/** A shell command's words, as sh reads the single quotes the examples use; anything else special must be quoted. */
function shellWords(command: string): string[] {
  const prefix = 'npx paygate call ';
  assert.ok(command.startsWith(prefix), command);
  const words = ['npx paygate call'];
  let rest = command.slice(prefix.length);
  while (rest.length > 0) {
    let word = '';
    while (rest.length > 0 && rest[0] !== ' ') {
      if (rest[0] === "'") {
        const end = rest.indexOf("'", 1);
        assert.ok(end > 0, `unclosed quote in ${command}`);
        word += rest.slice(1, end);
        rest = rest.slice(end + 1);
      } else if (rest[0] === '\\') {
        word += rest[1];
        rest = rest.slice(2);
      } else {
        assert.ok(!/[?*[\]$`"&;|<>(){}]/.test(rest[0]!), `${rest[0]} unquoted in ${command}`);
        word += rest[0];
        rest = rest.slice(1);
      }
    }
    words.push(word);
    rest = rest.replace(/^ +/, '');
  }
  return words;
}

function assertValid(schema: TSchema, part: string, value: unknown, what: string): void {
  const validate = validatorCompiler({ schema, httpPart: part, method: 'POST', url: '/' } as never) as ((
    data: unknown,
  ) => boolean) & { errors?: unknown };
  assert.ok(validate(structuredClone(value)), `${what}: ${JSON.stringify(validate.errors)}`);
}

/** The schema with no room for fields it does not declare (the serialiser would drop them from a real reply). */
function strict(schema: unknown): TSchema {
  if (Array.isArray(schema)) return schema.map(strict) as never;
  if (typeof schema !== 'object' || schema === null) return schema as never;
  const copy: Record<string, unknown> = Object.fromEntries(
    Object.entries(schema).map(([key, value]) => [key, strict(value)]),
  );
  if (copy.properties && copy.additionalProperties === undefined) copy.additionalProperties = false;
  return copy as never;
}

/** A route URL (`/customers/:uuid`) matches a path that fills its parameters. */
function matches(url: string, path: string): boolean {
  return new RegExp(`^${url.replace(/:\w+/g, '[^/]+')}$`).test(path);
}

/** What a client call sends, through a fetch that answers with the example's reply. */
async function recordClientCall(
  method: string,
  args: readonly unknown[],
  reply: unknown,
): Promise<{ method: string; path: string; body: unknown }> {
  let sent: { method: string; path: string; body: unknown } | undefined;
  const fetch = (async (url: URL, init: RequestInit) => {
    sent = {
      method: String(init.method),
      path: url.pathname,
      body: init.body === undefined ? undefined : JSON.parse(String(init.body)),
    };
    return new Response(JSON.stringify({ code: 200, message: 'success', data: reply }), {
      status: 200,
      headers: { 'content-type': 'application/json' },
    });
  }) as typeof globalThis.fetch;
  const client = new PaygateClient({
    baseUrl: 'http://paygate.test',
    appId: 'app',
    privateKey: TEST_PRIVATE_KEY,
    fetch,
    retry: { maxAttempts: 1 },
  });
  await clientMethod(client, method)(...args);
  assert.ok(sent, `${method} sent a request`);
  return sent;
}

/**
 * A live reply and the example have the same fields, all the way down (values differ: ids, times). A list empty
 * on either side has nothing to compare (the live merchant may have no completed order yet).
 */
function assertSameShape(live: unknown, example: unknown, where: string): void {
  if (Array.isArray(live) && Array.isArray(example)) {
    if (live.length > 0 && example.length > 0) assertSameShape(live[0], example[0], `${where}[0]`);
    return;
  }
  if (typeof live === 'object' && live !== null && typeof example === 'object' && example !== null) {
    assert.deepEqual(Object.keys(live).sort(), Object.keys(example).sort(), `${where} has the example's fields`);
    for (const key of Object.keys(live))
      assertSameShape(
        (live as Record<string, unknown>)[key],
        (example as Record<string, unknown>)[key],
        `${where}.${key}`,
      );
    return;
  }
  assert.equal(
    live === null ? 'null' : typeof live,
    example === null ? 'null' : typeof example,
    `${where} is of the example's type`,
  );
}
