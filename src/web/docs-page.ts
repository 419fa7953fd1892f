import { type Html, html } from './html.js';
import { ICON_PATH } from './icon.js';
import { documentHead } from './layout.js';

/**
 * The API reference at /docs: paygate's own page, rendered once from the OpenAPI document the routes declare.
 * Like the hosted pages it has no script at all (a browser cannot sign a request, so there is nothing for a
 * script to try) and loads nothing but our own stylesheet and icon.
 */

export const DOCS_STYLESHEET_PATH = '/docs/assets/docs.css';

// ---- the part of OpenAPI 3.1 the page reads ----

export interface Schema {
  type?: string | string[];
  properties?: Record<string, Schema>;
  required?: string[];
  additionalProperties?: boolean | Schema;
  items?: Schema;
  anyOf?: Schema[];
  oneOf?: Schema[];
  enum?: unknown[];
  const?: unknown;
  default?: unknown;
  description?: string;
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  minItems?: number;
  maxItems?: number;
  pattern?: string;
  $ref?: string;
}

interface Media {
  schema?: Schema;
  example?: unknown;
}

interface Parameter {
  name: string;
  in: string;
  required?: boolean;
  description?: string;
  schema?: Schema;
}

export interface CodeSample {
  lang: string;
  label: string;
  source: string;
  note?: string;
}

export interface Operation {
  operationId?: string;
  summary?: string;
  description?: string;
  tags?: string[];
  security?: unknown[];
  parameters?: Parameter[];
  requestBody?: { content?: Record<string, Media> };
  responses?: Record<string, { description?: string; content?: Record<string, Media> }>;
  'x-codeSamples'?: CodeSample[];
  'x-alias-of'?: string;
}

export interface OpenApiDocument {
  info: { title: string; version: string };
  tags?: Array<{ name: string; description?: string }>;
  paths: Record<string, Record<string, Operation>>;
  components?: { schemas?: Record<string, Schema> };
}

export interface DocsPageOptions {
  /** The server's public address, which the examples call. */
  baseUrl: string;
  /** The closed list of error codes, with their statuses and messages. */
  errors: ReadonlyArray<{ code: string; status: number; message: string }>;
  /** A success envelope and an error envelope as the server writes them. */
  successEnvelope: { code: number; message: string };
  errorExample: unknown;
  /** Sandbox mode: the page says so, and points to the sandbox's operations. */
  sandbox: boolean;
}

interface Entry {
  method: string;
  path: string;
  operation: Operation;
  aliases: Array<{ method: string; path: string }>;
}

const METHODS = ['get', 'put', 'post', 'delete', 'patch'];

export function renderDocsPage(document: OpenApiDocument, options: DocsPageOptions): string {
  const base = options.baseUrl;
  const resolve = resolver(document);
  const entries = operationsOf(document);
  const tags = tagsOf(document, entries);
  return html`${documentHead({ title: 'paygate API reference', stylesheet: DOCS_STYLESHEET_PATH })}
<body>
<header class="topbar">
<a class="brand" href="#start"><img src="${ICON_PATH}" alt="" width="28" height="28"><span>paygate</span></a>
<span class="title">API reference</span>
<span class="version">${document.info.version}</span>
<a class="raw" href="/openapi.json">OpenAPI document</a>
</header>
<div class="layout">
<nav class="toc" aria-label="Contents">
<ul>
<li><a href="#start">Getting started</a></li>
<li><a href="#signing">Signing requests</a></li>
<li><a href="#replies">Replies and errors</a></li>
${tags.map(
  (tag) => html`<li><a href="#${tagId(tag.name)}">${capitalise(tag.name)}</a>
<ul>${tag.entries.map((entry) => html`<li><a href="#${opId(entry)}">${methodBadge(entry.method)} ${shortName(entry)}</a></li>`)}</ul></li>`,
)}
</ul>
</nav>
<main>
${intro(base, options)}
${signing()}
${replies(options)}
${tags.map(
  (tag) => html`<section class="tag" id="${tagId(tag.name)}">
<h2>${capitalise(tag.name)}</h2>
${tag.description && html`<p>${tag.description}</p>`}
${tag.entries.map((entry) => operationSection(entry, resolve))}
</section>`,
)}
</main>
</div>
<footer class="footer">paygate ${document.info.version}: the OpenAPI document of this server is at <a href="/openapi.json">/openapi.json</a>.</footer>
</body>
</html>
`.text;
}

// ---- the sections before the operations ----

function intro(base: string, options: DocsPageOptions): Html {
  const client = `import { readFileSync } from 'node:fs';
import { PaygateClient } from '@paygate/client';

const paygate = new PaygateClient({
  baseUrl: '${base}',
  appId: 'YOUR_APP_ID',
  privateKey: readFileSync('private-key.pem', 'utf8'),
});`;
  const php = `$sdk = new PaymentSDK([
    'appid' => 'YOUR_APP_ID',
    'signaturePrivateKey' => file_get_contents('private-key.pem'),
    'webhookVerifyPublicKey' => file_get_contents('webhook-public-key.pem'),
    'callback_url' => 'https://shop.example.com/paygate/webhooks',
    'redirect_url' => 'https://shop.example.com/orders/done',
]);`;
  const cli = `npx paygate call POST /svc/payment/api/v1/openapi/echo '{"message":"Hello, paygate"}'`;
  return html`<section id="start">
<h1>paygate API reference</h1>
<p>The merchant payments interface of this server, at <code>${base}</code>. Every operation below shows a request
that works, the same call made with <code>@paygate/client</code> (TypeScript), with the official PHP SDK where it
has that call, and with <code>npx paygate call</code> from a shell, and the reply it gets.</p>
${
  options.sandbox &&
  html`<p class="notice">This server runs in <strong>sandbox</strong> mode: no real money moves, the sandbox's
magic card numbers decide what the acquirer answers, and the <a href="#${tagId('sandbox')}">sandbox operations</a> move the clock and finish pending payments.</p>`
}
<h3>Set up a client once</h3>
<div class="samples">
${sample('@paygate/client', 'ts', client)}
${sample('PHP SDK', 'php', php, 'The SDK (its PaymentSDK class) picks its gateway address from its environment option: point that address at this server. It has calls for creating an order with a payment link, querying an order, voiding and refunding; the operations it has no call for show none.')}
${sample('npx paygate call', 'shell', cli, 'Run in the paygate folder: it signs with the demo app and key of the data folder (the first start creates them), or with --app and --key; --base-url names another server, --idempotency-key and --include (status and headers) are there too.')}
</div>
</section>`;
}

function signing(): Html {
  const steps = `k1        = HMAC-SHA256(key = Nonce, message = request time)
k2        = HMAC-SHA256(key = k1, message = "Wonder-RSA-SHA256")
pre-sign  = METHOD + "\\n" + request-target  [+ "\\n" + body, when the body is not empty]
message   = lowercase hex of HMAC-SHA256(key = k2, message = pre-sign)
Signature = base64(RSASSA-PKCS1-v1_5 SHA-256 of message, with the merchant's private key)`;
  const own = `import { signRequest } from '@paygate/client';

const body = JSON.stringify({ message: 'Hello, paygate' });
const headers = signRequest({
  appId, privateKey, method: 'POST', target: '/svc/payment/api/v1/openapi/echo', body,
});
// { Credential: '…/20261121080000/Wonder-RSA-SHA256', Nonce: '…', Signature: '…' }`;
  return html`<section id="signing">
<h2>Signing requests</h2>
<p class="notice warn" data-testid="no-try-it"><strong>No "Try it" here, on purpose.</strong> Every operation under <code>/svc/</code> must be
signed with the merchant's RSA private key, and that key must never be in a web page. A browser could only send
unsigned requests, which paygate answers with <code>401</code>. Send requests with <code>npx paygate call</code>,
<code>@paygate/client</code> or the PHP SDK, as each operation below shows: they sign for you.</p>
<p>Three headers carry the signature (Wonder-RSA-SHA256, the algorithm the interface's existing clients use):</p>
<table class="plain">
<thead><tr><th>Header</th><th>Value</th></tr></thead>
<tbody>
<tr><td><code>Credential</code></td><td><code>{AppID}/{request time}/Wonder-RSA-SHA256</code>, the request time in UTC as <code>yyyyMMddHHmmss</code>, within 30 minutes of the server's clock</td></tr>
<tr><td><code>Nonce</code></td><td>16 to 64 random characters from <code>[0-9A-Za-z]</code>, never used twice by the app</td></tr>
<tr><td><code>Signature</code></td><td>standard base64 of the RSA signature computed below</td></tr>
<tr><td><code>X-Request-ID</code></td><td>optional, echoed in the reply; clients reuse it, so it is not an idempotency key</td></tr>
<tr><td><code>Idempotency-Key</code></td><td>optional on POST and PUT: the same key and request again get the first reply again</td></tr>
</tbody>
</table>
<p>The signature covers the method, the request-target (path and <code>?query</code> exactly as sent) and the exact
body bytes sent:</p>
<pre class="code"><code>${steps}</code></pre>
<p>A hand-written TypeScript client can take just the signing from the SDK:</p>
<pre class="code"><code>${own}</code></pre>
<p><code>docs/signing.md</code> in paygate's repository has a worked example with test vectors, and the checks paygate makes, in order, with
the error each one answers. Webhooks that paygate sends are signed the same way, with the app's webhook key
(<code>docs/webhooks.md</code>).</p>
</section>`;
}

function replies(options: DocsPageOptions): Html {
  const success = JSON.stringify(
    { code: options.successEnvelope.code, message: options.successEnvelope.message, data: {} },
    null,
    2,
  ).replace('{}', '{ … }');
  return html`<section id="replies">
<h2>Replies and errors</h2>
<p>Every reply is an envelope. Success is HTTP 200 with <code>code</code> <strong data-testid="success-code">${options.successEnvelope.code}</strong>; what the operation returns is in <code>data</code>:</p>
<pre class="code"><code>${success}</code></pre>
<p>An error carries its code as a number in <code>code</code> (the HTTP status, for the codes that are not all
digits) and as text in <code>error_code</code>, with <code>data: null</code>:</p>
<pre class="code"><code>${JSON.stringify(options.errorExample, null, 2)}</code></pre>
<p>A declined card, an acquirer fault or a payment waiting for 3-D Secure is not an error: the reply is a success
whose transaction says so. A POST or PUT sent again with the same <code>Idempotency-Key</code> gets the first reply again
(with <code>Idempotent-Replayed: true</code>) instead of running twice. The codes:</p>
<details class="errors"><summary>Every error code (${options.errors.length})</summary>
<table class="plain">
<thead><tr><th>error_code</th><th>HTTP</th><th>Meaning</th></tr></thead>
<tbody>${options.errors.map((error) => html`<tr id="${errorId(error.code)}"><td><code>${error.code}</code></td><td>${error.status}</td><td>${error.message}</td></tr>`)}</tbody>
</table>
</details>
</section>`;
}

// ---- an operation ----

function operationSection(entry: Entry, resolve: (schema: Schema) => Schema): Html {
  const { operation } = entry;
  const parameters = operation.parameters ?? [];
  const body = operation.requestBody?.content?.['application/json'];
  const okMedia = operation.responses?.['200']?.content?.['application/json'];
  const samples = operation['x-codeSamples'] ?? [];
  const signed = (operation.security ?? []).length > 0;
  const data = okMedia?.schema ? resolve(okMedia.schema).properties?.data : undefined;
  return html`<article class="operation" id="${opId(entry)}" data-operation="${operation.operationId ?? ''}">
<h3>${methodBadge(entry.method)} <code class="path">${entry.path}</code></h3>
<p class="summary">${operation.summary}</p>
${operation.description && html`<p>${operation.description}</p>`}
${entry.aliases.map((alias) => html`<p class="alias">Also answered at ${methodBadge(alias.method)} <code>${alias.path}</code> (clients in the wild use both).</p>`)}
${!signed && html`<p class="muted">Not signed: for operators and load balancers.</p>`}
${
  parameters.length > 0 &&
  html`<h4>Parameters</h4>
<table class="plain params">
<thead><tr><th>Name</th><th>In</th><th>Type</th><th>Description</th></tr></thead>
<tbody>${parameters.map((p) => html`<tr><td><code>${p.name}</code>${p.required && html` <span class="req">required</span>`}</td><td>${p.in}</td><td>${typeText(resolve(p.schema ?? {}), resolve)}${rules(p.schema ?? {})}</td><td>${p.description ?? p.schema?.description ?? ''}</td></tr>`)}</tbody>
</table>`
}
${body?.schema && html`<h4>Request body</h4>${fields(resolve(body.schema), resolve)}`}
${
  samples.length > 0 &&
  html`<h4>Example</h4>
<div class="samples">${samples.map((s) => sample(s.label, langClass(s.lang), s.source, s.note))}</div>`
}
${
  okMedia?.example !== undefined &&
  html`<h4>Success reply <span class="muted">HTTP 200</span></h4>
<pre class="code reply" data-testid="success-example"><code>${JSON.stringify(okMedia.example, null, 2)}</code></pre>`
}
${data && html`<details><summary>Fields of <code>data</code></summary>${fields(resolve(data), resolve)}</details>`}
${errorList(operation)}
</article>`;
}

function errorList(operation: Operation): Html | '' {
  const byStatus = Object.entries(operation.responses ?? {})
    .filter(([status]) => status !== '200')
    .map(([status, response]) => {
      const schema = response.content?.['application/json']?.schema;
      const codes = (schema?.properties?.error_code?.enum ?? []) as string[];
      return { status, codes };
    })
    .filter(({ codes }) => codes.length > 0);
  if (byStatus.length === 0) return '';
  return html`<details><summary>Errors it may answer</summary>
<table class="plain">
<tbody>${byStatus.map(({ status, codes }) => html`<tr><td>${status}</td><td>${codes.map((code, i) => html`${i > 0 && ', '}<a href="#${errorId(code)}"><code>${code}</code></a>`)}</td></tr>`)}</tbody>
</table>
</details>`;
}

function sample(label: string, lang: string, source: string, note?: string): Html {
  return html`<figure class="sample" data-sample="${label}">
<figcaption>${label}</figcaption>
<pre class="code"><code class="lang-${lang}">${source}</code></pre>
${note && html`<p class="note">${note}</p>`}
</figure>`;
}

// ---- schemas, compactly ----

function fields(schema: Schema, resolve: (schema: Schema) => Schema, depth = 0): Html {
  const properties = Object.entries(schema.properties ?? {});
  if (properties.length === 0) {
    return html`<p class="type-only">${typeText(schema, resolve)}${rules(schema)}${schema.description && html` · ${schema.description}`}</p>`;
  }
  return html`<ul class="fields">${properties.map(([name, raw]) => {
    const child = resolve(raw);
    const nested = objectOf(child, resolve);
    return html`<li><code class="name">${name}</code> <span class="type">${typeText(child, resolve)}</span>${schema.required?.includes(name) && html` <span class="req">required</span>`}${rules(child)}${child.description && html` <span class="desc">${child.description}</span>`}
${nested && depth < 6 && fields(nested, resolve, depth + 1)}</li>`;
  })}</ul>`;
}

/** The object whose fields a value has: itself, its items', or a branch's (a nullable object). */
function objectOf(schema: Schema, resolve: (schema: Schema) => Schema): Schema | undefined {
  if (schema.properties && Object.keys(schema.properties).length > 0) return schema;
  if (schema.items) return objectOf(resolve(schema.items), resolve);
  for (const branch of schema.anyOf ?? schema.oneOf ?? []) {
    const found = objectOf(resolve(branch), resolve);
    if (found) return found;
  }
  return undefined;
}

function typeText(schema: Schema, resolve: (schema: Schema) => Schema): string {
  if (schema.const !== undefined) return `always ${JSON.stringify(schema.const)}`;
  const branches = schema.anyOf ?? schema.oneOf;
  if (branches) return [...new Set(branches.map((branch) => typeText(resolve(branch), resolve)))].join(' or ');
  const types = schema.type === undefined ? ['any'] : Array.isArray(schema.type) ? schema.type : [schema.type];
  return types
    .map((type) => {
      if (type === 'array') return `array of ${schema.items ? typeText(resolve(schema.items), resolve) : 'any'}`;
      if (type === 'object' && !schema.properties && typeof schema.additionalProperties === 'object')
        return 'object (any keys)';
      return type;
    })
    .join(' or ');
}

function rules(schema: Schema): Html {
  const parts: string[] = [];
  const values = schema.enum?.filter((value) => value !== null);
  if (values && values.length > 0) parts.push(`one of ${values.map((value) => JSON.stringify(value)).join(', ')}`);
  if (schema.minLength !== undefined && schema.maxLength !== undefined)
    parts.push(`${schema.minLength} to ${schema.maxLength} characters`);
  else if (schema.maxLength !== undefined) parts.push(`at most ${schema.maxLength} characters`);
  else if (schema.minLength !== undefined) parts.push(`at least ${schema.minLength} characters`);
  if (schema.minimum !== undefined && schema.maximum !== undefined)
    parts.push(`${schema.minimum} to ${schema.maximum}`);
  else if (schema.minimum !== undefined) parts.push(`at least ${schema.minimum}`);
  else if (schema.maximum !== undefined) parts.push(`at most ${schema.maximum}`);
  if (schema.maxItems !== undefined) parts.push(`at most ${schema.maxItems} items`);
  if (schema.pattern !== undefined) parts.push(`matches ${schema.pattern}`);
  if (schema.default !== undefined) parts.push(`default ${JSON.stringify(schema.default)}`);
  return parts.length === 0 ? html`` : html` <span class="rule">${parts.join('; ')}</span>`;
}

// ---- the document ----

function operationsOf(document: OpenApiDocument): Entry[] {
  const entries: Entry[] = [];
  const aliases: Array<{ of: string; method: string; path: string }> = [];
  for (const [path, methods] of Object.entries(document.paths)) {
    for (const [method, operation] of Object.entries(methods)) {
      if (!METHODS.includes(method)) continue;
      const of = operation['x-alias-of'];
      if (of !== undefined) aliases.push({ of, method: method.toUpperCase(), path });
      else entries.push({ method: method.toUpperCase(), path, operation, aliases: [] });
    }
  }
  for (const alias of aliases) {
    const entry = entries.find((candidate) => candidate.operation.operationId === alias.of);
    if (!entry) throw new Error(`${alias.method} ${alias.path} is an alias of ${alias.of}, which the document lacks`);
    entry.aliases.push({ method: alias.method, path: alias.path });
  }
  return entries;
}

/** The declared tags in their order, then any other an operation names; each with its operations. */
function tagsOf(
  document: OpenApiDocument,
  entries: Entry[],
): Array<{ name: string; description?: string; entries: Entry[] }> {
  const names = [...(document.tags ?? []).map((tag) => tag.name)];
  for (const entry of entries)
    for (const tag of entry.operation.tags ?? ['other']) if (!names.includes(tag)) names.push(tag);
  return names
    .map((name) => ({
      name,
      description: document.tags?.find((tag) => tag.name === name)?.description,
      entries: entries.filter((entry) => (entry.operation.tags ?? ['other'])[0] === name),
    }))
    .filter((tag) => tag.entries.length > 0);
}

function resolver(document: OpenApiDocument): (schema: Schema) => Schema {
  return (schema) => {
    let current = schema;
    for (let hops = 0; current.$ref !== undefined && hops < 10; hops += 1) {
      const name = current.$ref.replace('#/components/schemas/', '');
      const target = document.components?.schemas?.[name];
      if (!target) throw new Error(`the document defines no ${current.$ref}`);
      current = target;
    }
    return current;
  };
}

// ---- small things ----

function methodBadge(method: string): Html {
  return html`<span class="method ${method.toLowerCase()}">${method}</span>`;
}

const slug = (text: string) =>
  text
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '');
const tagId = (name: string) => `tag-${slug(name)}`;
const opId = (entry: Entry) => `op-${entry.operation.operationId ?? slug(`${entry.method} ${entry.path}`)}`;
const errorId = (code: string) => `error-${slug(code)}`;
/** The summary's first clause, for the contents. */
const shortName = (entry: Entry) =>
  (entry.operation.summary ?? entry.path).split(/[;:.]\s|\s\(|,\s/)[0]!.replace(/\.$/, '');
const capitalise = (text: string) => `${text[0]?.toUpperCase() ?? ''}${text.slice(1)}`;
const langClass = (lang: string) => ({ TypeScript: 'ts', PHP: 'php', Shell: 'shell' })[lang] ?? 'text';
