import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type OpenApiDocument, type Operation, renderDocsPage } from '../../src/web/docs-page.js';
import { ICON_PATH } from '../../src/web/icon.js';
import { rawRequest, startTestServer, type TestServer } from '../support/server.js';

// The API reference at /docs (issue 11, point 7): paygate's own page in place of a stock one, saying how to sign
// and why there is no "Try it", and showing every operation of the OpenAPI document with its worked example
// (api-examples.test.ts checks the examples themselves; docs-browser.test.ts loads the page in Chromium).

describe('the API reference at /docs', () => {
  let server: TestServer;
  let page: Awaited<ReturnType<typeof rawRequest>>;
  let document: OpenApiDocument;

  before(async () => {
    server = await startTestServer();
    page = await rawRequest(server.url, { method: 'GET', target: '/docs' });
    document = (await rawRequest(server.url, { method: 'GET', target: '/openapi.json' })).json as OpenApiDocument;
  });
  after(() => server.close());

  test("is paygate's own page: its title and icon, its own stylesheet, no Swagger UI, no script, a strict policy", async () => {
    assert.equal(page.status, 200);
    assert.match(String(page.headers['content-type']), /^text\/html; charset=utf-8/);
    assert.match(page.text, /<title>paygate API reference<\/title>/);
    assert.ok(page.text.includes(`<link rel="icon" type="image/svg+xml" href="${ICON_PATH}">`));
    assert.doesNotMatch(page.text, /swagger|petstore|redoc/i, 'nothing of another project');
    assert.doesNotMatch(page.text, /<script|\son[a-z]+=|javascript:/i, 'no script at all');
    // Everything the page loads or links to is on this server.
    for (const [, url] of page.text.matchAll(/\s(?:src|href)="([^"]*)"/g)) {
      assert.ok(url!.startsWith('/') || url!.startsWith('#'), `${url} is one of ours`);
    }
    const policy = String(page.headers['content-security-policy']);
    assert.match(policy, /default-src 'none'/);
    assert.match(policy, /style-src 'self'/);
    assert.doesNotMatch(policy, /unsafe|script-src/);
    assert.equal(page.headers['x-frame-options'], 'DENY');

    const stylesheet = /<link rel="stylesheet" href="([^"]+)">/.exec(page.text)?.[1];
    assert.ok(stylesheet);
    const css = await rawRequest(server.url, { method: 'GET', target: stylesheet });
    assert.equal(css.status, 200);
    assert.match(String(css.headers['content-type']), /^text\/css/);
    assert.equal((await rawRequest(server.url, { method: 'GET', target: ICON_PATH })).status, 200);
  });

  test('says how to sign, and that a browser cannot, so there is no "Try it"', () => {
    const signing = section(page.text, 'signing');
    for (const header of ['Credential', 'Nonce', 'Signature'])
      assert.ok(signing.includes(`<code>${header}</code>`), header);
    assert.match(signing, /Wonder-RSA-SHA256/);
    assert.match(text(signing), /HMAC-SHA256\(key = Nonce, message = request time\)/);
    assert.match(text(signing), /No "Try it" here, on purpose\..* answers with 401/);
    assert.match(text(signing), /npx paygate call/);
    assert.match(text(signing), /docs\/signing\.md/);
    assert.doesNotMatch(page.text, /<button|<form/, 'nothing on the page sends a request');
  });

  test('shows every operation of the document with its examples and its success reply, code 200', () => {
    assert.match(text(section(page.text, 'replies')), /Success is HTTP 200 with code 200;/);
    let shown = 0;
    for (const [path, methods] of Object.entries(document.paths)) {
      for (const [method, operation] of Object.entries(methods) as Array<[string, Operation]>) {
        const aliasOf = operation['x-alias-of'];
        if (aliasOf !== undefined) {
          assert.ok(
            text(article(page.text, aliasOf)).includes(`Also answered at ${method.toUpperCase()} ${path}`),
            `${path} beside ${aliasOf}`,
          );
          continue;
        }
        shown += 1;
        const id = operation.operationId!;
        const html = article(page.text, id);
        assert.ok(text(html).includes(`${method.toUpperCase()} ${path}`), `${id} names its method and path`);
        assert.ok(html.includes(`<p class="summary">${escapeHtml(operation.summary!)}</p>`), `${id} has its summary`);
        assert.ok(page.text.includes(`<a href="#op-${id}">`), `the contents lead to ${id}`);
        const samples = operation['x-codeSamples'] ?? [];
        assert.ok(samples.length > 0, id);
        assert.deepEqual(
          [...samplesOf(html)],
          samples.map((s) => [s.label, s.source]),
          `${id} shows its examples`,
        );
        const reply = operation.responses?.['200']?.content?.['application/json']?.example as
          | { code: number }
          | undefined;
        if (reply !== undefined) {
          const onPage = /data-testid="success-example"><code>([^<]*)<\/code>/.exec(html)?.[1];
          assert.ok(onPage, `${id} shows its success reply`);
          assert.deepEqual(JSON.parse(unescapeHtml(onPage)), reply, id);
          assert.equal(reply.code, 200, id);
        }
        if (operation.requestBody)
          assert.match(html, /<h4>Request body<\/h4>\s*<ul class="fields">/, `${id} lists its body's fields`);
      }
    }
    assert.ok(shown >= 25, `${shown} operations`);
  });

  test('the page escapes whatever the document holds', () => {
    const hostile = '<img src=x onerror=alert(1)>"\'&';
    const rendered = renderDocsPage(
      {
        info: { title: 'paygate', version: hostile },
        tags: [{ name: hostile, description: hostile }],
        paths: {
          [`/svc/${hostile}`]: {
            post: {
              operationId: hostile,
              summary: hostile,
              description: hostile,
              tags: [hostile],
              parameters: [
                { name: hostile, in: 'query', description: hostile, schema: { type: 'string', pattern: hostile } },
              ],
              requestBody: {
                content: {
                  'application/json': {
                    schema: {
                      type: 'object',
                      properties: { [hostile]: { type: 'string', description: hostile, enum: [hostile] } },
                    },
                  },
                },
              },
              responses: { 200: { content: { 'application/json': { example: { data: hostile } } } } },
              'x-codeSamples': [{ lang: 'Shell', label: hostile, source: hostile, note: hostile }],
            },
          },
        },
      },
      {
        baseUrl: hostile,
        errors: [{ code: hostile, status: 400, message: hostile }],
        successEnvelope: { code: 200, message: hostile },
        errorExample: hostile,
        sandbox: true,
      },
    );
    assert.ok(!rendered.includes('<img src=x'), 'no markup from the document');
    assert.ok(!/onerror=alert\(1\)>["']/.test(rendered), 'no attribute breaks out');
    assert.ok(rendered.includes('&lt;img src=x onerror=alert(1)&gt;&quot;&#39;&amp;'));
  });

  test('the addresses of the page it replaced lead here', async () => {
    for (const [from, to] of [
      ['/docs/', '/docs'],
      ['/docs/json', '/openapi.json'],
    ] as const) {
      const reply = await rawRequest(server.url, { method: 'GET', target: from });
      assert.equal(reply.status, 301, from);
      assert.equal(reply.headers.location, to);
    }
    assert.equal((await rawRequest(server.url, { method: 'GET', target: '/docs/static/index.html' })).status, 404);
  });
});

function section(html: string, id: string): string {
  const start = html.indexOf(`<section id="${id}">`);
  assert.ok(start >= 0, `the page has the section ${id}`);
  return html.slice(start, html.indexOf('</section>', start));
}

function article(html: string, operationId: string): string {
  const start = html.indexOf(`data-operation="${escapeHtml(operationId)}"`);
  assert.ok(start >= 0, `the page has ${operationId}`);
  return html.slice(start, html.indexOf('</article>', start));
}

/** The code samples of an operation, by label, their text unescaped. */
function samplesOf(html: string): Map<string, string> {
  const samples = new Map<string, string>();
  for (const [, label, code] of html.matchAll(
    /<figure class="sample" data-sample="([^"]*)">[\s\S]*?<code[^>]*>([\s\S]*?)<\/code>/g,
  )) {
    samples.set(unescapeHtml(label!), unescapeHtml(code!));
  }
  return samples;
}

const ENTITIES: Record<string, string> = { '&amp;': '&', '&lt;': '<', '&gt;': '>', '&quot;': '"', '&#39;': "'" };
const unescapeHtml = (html: string) => html.replace(/&(?:amp|lt|gt|quot|#39);/g, (entity) => ENTITIES[entity]!);
const escapeHtml = (value: string) =>
  value.replace(/[&<>"']/g, (c) => Object.entries(ENTITIES).find(([, v]) => v === c)![0]);
/** The text a reader sees: tags removed, entities read, spaces collapsed. */
const text = (html: string) => unescapeHtml(html.replace(/<[^>]+>/g, '')).replace(/\s+/g, ' ');
