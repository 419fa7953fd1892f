import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { Agent as HttpAgent, request as httpRequest, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import type { LookupFunction } from 'node:net';
import { isInternalHost } from '../platform/urls.js';

export interface PostResult {
  status?: number;
  error?: string;
  /** The request could not be made and never will be (an invalid or forbidden address): no retry. */
  final?: boolean;
  durationMs: number;
}

export interface Poster {
  post(url: string, headers: Record<string, string>, body: string): Promise<PostResult>;
  close(): void;
}

/** What a receiver says beyond its status is not kept: read this much, then let the socket go back to the pool. */
const MAX_REPLY_BYTES = 4096;

/**
 * Sends webhook requests over pooled keep-alive connections. Never follows redirects (a 3xx is a final answer),
 * gives up after `timeoutMs` for the whole exchange, and with `refuseInternal` (live mode) refuses to connect
 * to loopback, private or link-local addresses, checked on the address the name resolved to, not on the name.
 */
export function createPoster(options: { timeoutMs: number; refuseInternal: boolean; maxSockets?: number }): Poster {
  const lookup: LookupFunction | undefined = options.refuseInternal ? guardedLookup : undefined;
  const agentOptions = { keepAlive: true, maxSockets: options.maxSockets ?? 64, lookup };
  const http = new HttpAgent(agentOptions);
  const https = new HttpsAgent(agentOptions);
  return {
    post(url, headers, body) {
      const started = performance.now();
      const elapsed = () => Math.round(performance.now() - started);
      return new Promise<PostResult>((resolve) => {
        let target: URL;
        try {
          target = new URL(url);
        } catch {
          resolve({ error: 'invalid URL', final: true, durationMs: 0 });
          return;
        }
        // A literal address is never looked up: check it here.
        if (options.refuseInternal && isInternalHost(target.hostname)) {
          resolve({ error: `${target.hostname} is an internal address: refused in live mode`, final: true, durationMs: 0 });
          return;
        }
        const secure = target.protocol === 'https:';
        const send = secure ? httpsRequest : httpRequest;
        let settled = false;
        const finish = (result: Omit<PostResult, 'durationMs'>) => {
          if (settled) return;
          settled = true;
          clearTimeout(timer);
          resolve({ ...result, durationMs: elapsed() });
        };
        const request = send(target, {
          method: 'POST',
          agent: secure ? https : http,
          headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) },
        }, (response: IncomingMessage) => {
          // The status is the answer: a receiver that then stalls its body has answered all the same.
          finish({ status: response.statusCode });
          let read = 0;
          response.on('data', (chunk: Buffer) => {
            read += chunk.length;
            if (read > MAX_REPLY_BYTES) response.destroy();
          });
          response.on('error', () => undefined);
          response.setTimeout(options.timeoutMs, () => response.destroy());
        });
        const timer = setTimeout(() => {
          finish({ error: `no answer within ${options.timeoutMs} ms` });
          request.destroy();
        }, options.timeoutMs);
        request.on('error', (error: NodeJS.ErrnoException) => finish({ error: describeNetworkError(error), final: error.code === 'EINTERNAL' }));
        request.end(body);
      });
    },
    close() {
      http.destroy();
      https.destroy();
    },
  };
}

function describeNetworkError(error: NodeJS.ErrnoException): string {
  const code = error.code ? ` (${error.code})` : '';
  switch (error.code) {
    case 'ECONNREFUSED': return `connection refused${code}`;
    case 'ECONNRESET': return `connection reset${code}`;
    case 'ENOTFOUND': return `host not found${code}`;
    case 'ETIMEDOUT': return `connection timed out${code}`;
    default: return `${error.message}${error.code && !error.message.includes(error.code) ? code : ''}`.slice(0, 500);
  }
}

/** DNS lookup that refuses internal addresses, so that a public name pointed at one cannot reach inside. */
const guardedLookup: LookupFunction = (hostname, options, callback) => {
  dnsLookup(hostname, { ...options, all: true }, (error, addresses) => {
    if (error) {
      callback(error, '', 0);
      return;
    }
    const list = addresses as unknown as LookupAddress[];
    const internal = list.find((a) => isInternalHost(a.address));
    if (internal || list.length === 0) {
      const refused: NodeJS.ErrnoException = new Error(`${hostname} resolves to an internal address (${internal?.address ?? 'none'}): refused in live mode`);
      refused.code = 'EINTERNAL';
      callback(refused, '', 0);
      return;
    }
    if ((options as { all?: boolean }).all) (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, list);
    else callback(null, list[0]!.address, list[0]!.family);
  });
};
