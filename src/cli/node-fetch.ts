import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';

/** Statuses whose reply has no body (a Response refuses one). */
const NO_BODY = new Set([101, 204, 205, 304]);

/**
 * `fetch` for a command that makes one call and ends, on node:http: Node's own fetch (undici) compiles its HTTP
 * parser, a WebAssembly module, on first use, and the process then waits for that compilation to finish before it
 * can exit, about 100 ms of a `paygate call` that otherwise takes as long. Only what the SDK's client uses: a
 * method, headers, a text or byte body, an abort signal; the reply is read whole, a redirect is not followed
 * (paygate answers none), and the connection is not kept. It fails as Node's fetch does: with the signal's reason
 * when aborted (a TimeoutError for `AbortSignal.timeout`), otherwise a TypeError whose cause is what went wrong.
 */
export const nodeFetch: typeof fetch = (input, init = {}) =>
  new Promise<Response>((resolve, reject) => {
    const signal = init.signal ?? undefined;
    const fail = (error: unknown) =>
      reject(signal?.aborted ? signal.reason : new TypeError('fetch failed', { cause: error }));
    const body = init.body ?? undefined;
    if (body !== undefined && typeof body !== 'string' && !(body instanceof Uint8Array)) {
      reject(new TypeError('nodeFetch sends text or bytes only'));
      return;
    }
    const url = new URL(input instanceof Request ? input.url : String(input));
    const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
    const headers = Object.fromEntries(new Headers(init.headers).entries());
    const outgoing = send(
      url,
      { method: init.method ?? 'GET', headers: { ...headers, connection: 'close' }, signal },
      (incoming) => {
        const chunks: Buffer[] = [];
        incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
        incoming.on('error', fail);
        incoming.on('end', () => {
          try {
            const replyHeaders = new Headers();
            for (const [name, value] of Object.entries(incoming.headers)) {
              for (const one of Array.isArray(value) ? value : value === undefined ? [] : [value])
                replyHeaders.append(name, one);
            }
            const status = incoming.statusCode ?? 0;
            const replyBody = NO_BODY.has(status) ? null : Buffer.concat(chunks);
            resolve(
              new Response(replyBody, { status, statusText: incoming.statusMessage ?? '', headers: replyHeaders }),
            );
          } catch (error) {
            // A status a Response cannot hold (below 200 or above 599): a broken server, said as a failed fetch.
            fail(error);
          }
        });
      },
    );
    outgoing.on('error', fail);
    outgoing.end(body);
  });
