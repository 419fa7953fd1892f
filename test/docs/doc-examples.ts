import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PROJECT_ROOT } from '../../src/platform/version.js';
import type { Operation } from '../support/openapi-document.js';

/**
 * The examples of signed calls in docs/*.md, as test/docs/doc-examples.test.ts runs them. What counts as one:
 *
 * - A fenced ```http block. It holds one or more requests, each a request line `METHOD /svc/...` (the path and
 *   query exactly as sent) and, on the lines after it up to the next request line, the request's JSON body, if any.
 * - A line of a ```sh block that runs `npx paygate call METHOD TARGET ['JSON']` (single quotes, as a shell reads
 *   them; a `#` comment after it is left out).
 * - The reply of a ```http block's last request: the next fenced block, when it is a ```json block in the same
 *   section (no heading between them). It shows the reply's `data` (an object, or the array some lists answer),
 *   as much of it as the doc wants, with `"…"` for what it leaves out (a value, a key `"…": "…"` for the other
 *   fields, an item `"…"` for the other items); or, for a request the doc shows being refused, the error envelope
 *   `{"code", "error_code", "message", "data": null}`.
 *
 * Ids are written as the examples of the API reference write them: UUIDs, 32 hexadecimal characters (a payment
 * token), 12 or more digits (an order number). An id shown in a reply names the object the real reply gives at the
 * same place, and later examples of the same doc that use the id are sent with the real one. Dates a request
 * needs in the future (a due date, a card's expiry, a payout's schedule_at) are written in 2030 or later.
 *
 * A request line `METHOD /svc/...` anywhere else in a fenced block is an error: write it as a ```http block.
 * `DOC_EXAMPLES_TRACE=1 npm test -- doc-examples` prints each request with its status, time and reply.
 */

export interface DocExample {
  file: string;
  /** The line of the request line (1-based), to name the example in a failure. */
  line: number;
  method: string;
  /** The request target (path and query) as written. */
  target: string;
  /** The JSON body as written, when there is one. */
  body?: string;
  /** The ```json block shown as the reply, when there is one. */
  reply?: { line: number; value: unknown };
}

export interface DocFile {
  name: string;
  text: string;
  examples: DocExample[];
  /** Lines that look like requests of the signed API but are not written as runnable examples. */
  strays: string[];
}

interface Fence {
  info: string;
  /** The line of the opening fence (1-based). */
  line: number;
  lines: string[];
  /** Line (1-based) of the closing fence. */
  end: number;
}

const REQUEST_LINE = /^(GET|POST|PUT|DELETE|PATCH) (\/\S*)$/;
const SIGNED_REQUEST = /^\s*(GET|POST|PUT|DELETE|PATCH) \/svc\//;
const SHELL_CALL = 'npx paygate call ';

export function readDocs(): DocFile[] {
  const folder = join(PROJECT_ROOT, 'docs');
  return readdirSync(folder)
    .filter((name) => name.endsWith('.md'))
    .sort()
    .map((name) => parseDoc(name, readFileSync(join(folder, name), 'utf8')));
}

export function parseDoc(name: string, text: string): DocFile {
  const lines = text.split('\n');
  const fences = fencesOf(lines);
  const examples: DocExample[] = [];
  const strays: string[] = [];
  fences.forEach((fence, index) => {
    const language = fence.info.trim().split(/\s+/)[0] ?? '';
    if (language === 'http') {
      const requests = httpRequests(name, fence);
      const next = fences[index + 1];
      if (
        next &&
        next.info.trim() === 'json' &&
        !lines.slice(fence.end, next.line - 1).some((line) => line.startsWith('#'))
      ) {
        requests[requests.length - 1]!.reply = {
          line: next.line,
          value: parseJson(name, next.line, next.lines.join('\n')),
        };
      }
      examples.push(...requests);
      return;
    }
    if (['sh', 'shell', 'bash'].includes(language)) examples.push(...shellCalls(name, fence));
    fence.lines.forEach((line, offset) => {
      if (SIGNED_REQUEST.test(line)) strays.push(`${name}:${fence.line + 1 + offset}: ${line.trim()}`);
    });
  });
  return { name, text, examples, strays };
}

function fencesOf(lines: string[]): Fence[] {
  const fences: Fence[] = [];
  let open: { indent: string; info: string; line: number; lines: string[] } | undefined;
  lines.forEach((line, index) => {
    const fence = /^(\s*)```(.*)$/.exec(line);
    if (!open) {
      if (fence) open = { indent: fence[1]!, info: fence[2]!, line: index + 1, lines: [] };
      return;
    }
    if (fence && fence[2]!.trim() === '') {
      fences.push({ info: open.info, line: open.line, lines: open.lines, end: index + 1 });
      open = undefined;
    } else {
      open.lines.push(line.startsWith(open.indent) ? line.slice(open.indent.length) : line);
    }
  });
  assert.equal(open, undefined, `a fenced block is never closed (from line ${open?.line})`);
  return fences;
}

function httpRequests(file: string, fence: Fence): DocExample[] {
  const requests: Array<DocExample & { bodyLines: string[] }> = [];
  fence.lines.forEach((text, offset) => {
    const line = fence.line + 1 + offset;
    const request = REQUEST_LINE.exec(text);
    if (request) {
      requests.push({ file, line, method: request[1]!, target: request[2]!, bodyLines: [] });
      return;
    }
    assert.ok(
      requests.length > 0 || text.trim() === '',
      `${file}:${line}: an http block begins with a request line (METHOD /path), not "${text}"`,
    );
    requests.at(-1)?.bodyLines.push(text);
  });
  assert.ok(requests.length > 0, `${file}:${fence.line}: an http block with no request line`);
  return requests.map(({ bodyLines, ...request }) => {
    const body = bodyLines.join('\n').trim();
    if (body === '') return request;
    parseJson(file, request.line, body);
    return { ...request, body };
  });
}

function shellCalls(file: string, fence: Fence): DocExample[] {
  const calls: DocExample[] = [];
  for (let index = 0; index < fence.lines.length; index += 1) {
    if (!fence.lines[index]!.trim().startsWith(SHELL_CALL)) continue;
    const line = fence.line + 1 + index;
    // A quoted body may run over several lines: take lines until the quotes close.
    let command = fence.lines[index]!.trim();
    while ((command.match(/'/g) ?? []).length % 2 === 1 && index + 1 < fence.lines.length)
      command += `\n${fence.lines[++index]!}`;
    const [method, target, body, ...rest] = shellWords(`${file}:${line}`, command.slice(SHELL_CALL.length));
    assert.ok(
      method && target && rest.length === 0,
      `${file}:${line}: npx paygate call METHOD TARGET ['JSON'], not ${command}`,
    );
    if (body !== undefined) parseJson(file, line, body);
    calls.push({ file, line, method, target, ...(body !== undefined && { body }) });
  }
  return calls;
}

/** The words of a command as sh reads them: single quotes and bare words; an unquoted `#` begins a comment. */
function shellWords(where: string, command: string): string[] {
  const words: string[] = [];
  let rest = command.trim();
  while (rest.length > 0 && !rest.startsWith('#')) {
    let word = '';
    while (rest.length > 0 && !/^\s/.test(rest)) {
      if (rest[0] === "'") {
        const end = rest.indexOf("'", 1);
        assert.ok(end > 0, `${where}: a quote is never closed`);
        word += rest.slice(1, end);
        rest = rest.slice(end + 1);
      } else {
        assert.ok(
          !/[?*[\]$`"\\&;|<>(){}]/.test(rest[0]!),
          `${where}: quote ${rest[0]} (sh would not pass it as written)`,
        );
        word += rest[0];
        rest = rest.slice(1);
      }
    }
    words.push(word);
    rest = rest.trimStart();
  }
  return words;
}

function parseJson(file: string, line: number, text: string): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    assert.fail(`${file}:${line}: not JSON (${(error as Error).message}):\n${text}`);
  }
}

/** The operation of the OpenAPI document that a request line calls: its method, and its path template filled. */
export function operationOf(operations: readonly Operation[], method: string, target: string): Operation | undefined {
  const path = target.split('?')[0]!;
  const matching = operations.filter(
    (operation) =>
      operation.method === method && new RegExp(`^${operation.path.replace(/\{\w+\}/g, '[^/]+')}$`).test(path),
  );
  // A literal segment wins over a parameter (none collide today; this keeps it so if one is added).
  return matching.sort((a, b) => a.pathParameters.length - b.pathParameters.length)[0];
}

const ID_FORMS = [
  /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i, // a UUID
  /^[0-9a-f]{32}$/i, // a payment token
  /^\d{12,}$/, // an order number
];

export const isId = (value: string): boolean => ID_FORMS.some((form) => form.test(value));

const ELIDED = '…';

/**
 * The text of a doc, each made-up value replaced by the real one: ids shown in earlier replies, and what the
 * doc's setup made for it.
 */
export class Substitutions {
  private readonly real = new Map<string, string>();

  /** `shown`, in the doc, stands for `real`. */
  give(shown: string, real: string): void {
    const known = this.real.get(shown);
    assert.ok(known === undefined || known === real, `${shown} stands for ${known}, and now for ${real}`);
    this.real.set(shown, real);
  }

  apply(text: string): string {
    let result = text;
    // Longest first, so that no value is replaced inside a longer one.
    for (const [shown, real] of [...this.real].sort(([a], [b]) => b.length - a.length))
      result = result.replaceAll(shown, real);
    return result;
  }

  /**
   * The reply shown in the doc against the real one: every field shown is there, of the type shown; text without
   * digits (states, names, reasons), booleans and nulls are as shown; an id shown names the real one from then on.
   * Values that differ from run to run (times, amounts the sandbox derives, masked numbers) are compared by type.
   */
  learn(shown: unknown, real: unknown, where: string): void {
    if (shown === ELIDED) return;
    if (shown === null) {
      assert.equal(real, null, `${where}: the doc shows null`);
      return;
    }
    if (Array.isArray(shown)) {
      assert.ok(Array.isArray(real), `${where}: the doc shows an array, the reply has ${JSON.stringify(real)}`);
      // `"…"` as an item: any number of items there.
      const items = shown.filter((item) => item !== ELIDED).length;
      assert.ok(real.length >= items, `${where}: the doc shows ${items} items, the reply has ${real.length}`);
      for (const [index, item] of shown.entries()) this.learn(item, real[index], `${where}[${index}]`);
      return;
    }
    if (typeof shown === 'object') {
      assert.ok(
        typeof real === 'object' && real !== null && !Array.isArray(real),
        `${where}: the doc shows an object, the reply has ${JSON.stringify(real)}`,
      );
      for (const [key, value] of Object.entries(shown)) {
        if (key === ELIDED) continue;
        assert.ok(
          key in real,
          `${where}.${key}: the doc shows it, the reply has no such field (it has ${Object.keys(real).join(', ')})`,
        );
        this.learn(value, (real as Record<string, unknown>)[key], `${where}.${key}`);
      }
      return;
    }
    assert.equal(
      typeof real,
      typeof shown,
      `${where}: the doc shows ${JSON.stringify(shown)}, the reply has ${JSON.stringify(real)}`,
    );
    if (typeof shown === 'string' && isId(shown)) {
      this.give(shown, real as string);
      return;
    }
    if (typeof shown === 'boolean' || (typeof shown === 'string' && !/\d/.test(shown) && !/^https?:/.test(shown))) {
      assert.equal(real, shown, `${where}: the doc shows ${JSON.stringify(shown)}`);
    }
  }
}
