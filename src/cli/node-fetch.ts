import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';

/**
 * `fetch` for a command that makes one call and ends, on node:http: Node's own fetch (undici) compiles its HTTP
 * parser, a WebAssembly module, on first use, and the process then waits for that compilation to finish before it
 * can exit, about 100 ms of a `paygate call` that otherwise takes as long. Only what the SDK's client uses: a
 * method, headers, a text or byte body, an abort signal; the reply is read whole. The connection is not kept.
 */
export const nodeFetch: typeof fetch = (input, init = {}) =>
  new Promise<Response>((resolve, reject) => {
    // As Node's fetch fails: a TypeError whose cause is what went wrong (a refused connection, the abort's reason).
    const fail = (error: unknown) => reject(new TypeError('fetch failed', { cause: error }));
    const url = new URL(input instanceof Request ? input.url : String(input));
    const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
    const headers = Object.fromEntries(new Headers(init.headers).entries());
    const outgoing = send(
      url,
      { method: init.method ?? 'GET', headers: { ...headers, connection: 'close' }, signal: init.signal ?? undefined },
      (incoming) => {
        const chunks: Buffer[] = [];
        incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
        incoming.on('error', fail);
        incoming.on('end', () => {
          const replyHeaders = new Headers();
          for (const [name, value] of Object.entries(incoming.headers)) {
            for (const one of Array.isArray(value) ? value : value === undefined ? [] : [value])
              replyHeaders.append(name, one);
          }
          const status = incoming.statusCode ?? 502;
          const body = status === 204 || status === 304 ? null : Buffer.concat(chunks);
          resolve(new Response(body, { status, statusText: incoming.statusMessage ?? '', headers: replyHeaders }));
        });
      },
    );
    outgoing.on('error', fail);
    const body = init.body;
    if (body === undefined || body === null) outgoing.end();
    else if (typeof body === 'string' || body instanceof Uint8Array) outgoing.end(body);
    else reject(new TypeError('nodeFetch sends text or bytes only'));
  });
