import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import SwaggerParser from '@apidevtools/swagger-parser';
import { declaredErrors } from '../../src/http/route.js';
import { ERRORS, modulesFor } from '../../src/modules.js';
import { rawRequest, startTestServer, type TestServer } from '../support/server.js';

interface Operation {
  operationId?: string;
  security?: unknown[];
  responses: Record<
    string,
    { content?: { 'application/json'?: { schema?: { properties?: { error_code?: { enum?: string[] } } } } } }
  >;
}
interface Document {
  openapi: string;
  info: { description: string };
  paths: Record<string, Record<string, Operation>>;
}

describe('the OpenAPI document', () => {
  let server: TestServer;
  let document: Document;

  before(async () => {
    server = await startTestServer();
    const reply = await rawRequest(server.url, { method: 'GET', target: '/openapi.json' });
    assert.equal(reply.status, 200);
    document = reply.json as Document;
  });
  after(() => server.close());

  test('is a valid OpenAPI 3.1 document', async () => {
    assert.equal(document.openapi, '3.1.0');
    await SwaggerParser.validate(structuredClone(document) as never);
  });

  test('has every route and alias, signed, with its error codes under the right status', () => {
    for (const route of modulesFor('sandbox').flatMap((module) => module.routes ?? [])) {
      for (const url of [route.url, ...(route.aliases ?? [])]) {
        const path = url.replace(/:(\w+)/g, '{$1}');
        const operation = document.paths[path]?.[route.method.toLowerCase()];
        assert.ok(operation, `${route.method} ${path} is documented`);
        assert.ok(operation.operationId?.startsWith(route.operationId));
        assert.deepEqual(operation.security, [{ Credential: [], Nonce: [], Signature: [] }]);
        assert.ok(operation.responses['200'], `${path} documents its success`);
        for (const { code, status } of declaredErrors(route)) {
          const codes =
            operation.responses[String(status)]?.content?.['application/json']?.schema?.properties?.error_code?.enum ??
            [];
          assert.ok(codes.includes(code), `${route.method} ${path} documents ${code} under ${status}`);
        }
      }
    }
  });

  test('says that success is code 200, as a constant, so that no viewer makes up another code for an example', () => {
    for (const [path, methods] of Object.entries(document.paths)) {
      for (const [method, operation] of Object.entries(methods)) {
        if (operation.operationId === 'metrics') continue; // Prometheus text, no envelope.
        if (operation.operationId === 'getBatchResultFile') continue; // A file, as itself: test/http/api-examples.test.ts.
        if (operation.operationId === 'streamEvents') continue; // Server-sent events: test/lab/listen.test.ts.
        const schema = operation.responses['200']?.content?.['application/json']?.schema as
          | { properties?: { code?: { const?: unknown; enum?: unknown[] } } }
          | undefined;
        // @fastify/swagger writes a `const` as a one-value `enum`, which every viewer understands.
        const code = schema?.properties?.code;
        assert.equal(
          code?.const ?? (code?.enum?.length === 1 ? code.enum[0] : undefined),
          200,
          `${method.toUpperCase()} ${path}`,
        );
      }
    }
  });

  test('lists every code of the closed error list', () => {
    for (const { code, status } of Object.values(ERRORS)) {
      assert.ok(document.info.description.includes(`| \`${code}\` | ${status} |`), `${code} is listed`);
    }
  });

  test("is browsable at /docs, as paygate's own page (docs-page.test.ts)", async () => {
    const page = await rawRequest(server.url, { method: 'GET', target: '/docs' });
    assert.equal(page.status, 200);
    assert.match(String(page.headers['content-type']), /text\/html/);
    assert.match(page.text, /<title>paygate API reference<\/title>/);
  });
});
