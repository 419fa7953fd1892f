import { Agent as HttpAgent, request as httpRequest, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import type { Mode } from '../platform/config.js';
import { FORBIDDEN_ADDRESS_CODE, guardedLookup } from '../platform/outbound.js';
import { isForbiddenHost } from '../platform/urls.js';

export interface PostResult {
  status?: number;
  error?: string;
  /** The request could not be made and never will be (an invalid or forbidden address): no retry. */
  final?: boolean;
  durationMs: number;
  /** With `readBody`: the reply's body, when it came whole within the time and the size allowed. */
  body?: string;
}

export interface Poster {
  /**
   * With `readBody`, waits for the reply's body (4 KiB at most) within the same time; otherwise the status is the
   * answer.
   */
  post(
    url: string,
    headers: Record<string, string>,
    body: string,
    options?: { readBody?: boolean },
  ): Promise<PostResult>;
  close(): void;
}

/** What a receiver says beyond its status is not kept: read this much, then let the socket go back to the pool. */
const MAX_REPLY_BYTES = 4096;

/**
 * Sends paygate's requests to merchants' URLs over pooled keep-alive connections: webhook deliveries, whose status
 * is the answer, and questions whose reply is the answer (`readBody`: issuing's real-time authorisation decisions).
 * Never follows redirects (a 3xx is a final answer),
 * gives up after `timeoutMs` for the whole exchange, and refuses to connect to an address the mode forbids
 * (platform/urls.ts: link-local and metadata addresses always, loopback and private ones in live mode), checked
 * on the address the name resolved to, not on the name. A failure is told in words a merchant can act on (a name
 * that does not resolve, a TLS certificate refused, a connection refused or reset, nothing in time); in live mode a
 * refused, reset or silent connection are told in the same words, so that paygate tells nobody which ports of a host
 * are open, and a refused address is never named.
 */
export function createPoster(options: { timeoutMs: number; mode: Mode; maxSockets?: number }): Poster {
  const lookup = guardedLookup(options.mode);
  const failure = failureWords(options.timeoutMs, options.mode);
  const agentOptions = { keepAlive: true, maxSockets: options.maxSockets ?? 64, lookup };
  const http = new HttpAgent(agentOptions);
  const https = new HttpsAgent(agentOptions);
  return {
    post(url, headers, body, { readBody = false } = {}) {
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
        if (isForbiddenHost(target.hostname, options.mode)) {
          resolve({ error: FORBIDDEN, final: true, durationMs: 0 });
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
        const request = send(
          target,
          {
            method: 'POST',
            agent: secure ? https : http,
            headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) },
          },
          (response: IncomingMessage) => {
            // The status is the answer: a receiver that then stalls its body has answered all the same.
            if (!readBody) finish({ status: response.statusCode });
            let read = 0;
            const chunks: Buffer[] = [];
            response.on('data', (chunk: Buffer) => {
              read += chunk.length;
              if (readBody && read <= MAX_REPLY_BYTES) chunks.push(chunk);
              if (read > MAX_REPLY_BYTES) {
                finish({ status: response.statusCode });
                response.destroy();
              }
            });
            response.on('end', () =>
              finish({ status: response.statusCode, body: Buffer.concat(chunks).toString('utf8') }),
            );
            response.on('error', () => undefined);
            response.setTimeout(options.timeoutMs, () => response.destroy());
          },
        );
        const timer = setTimeout(() => {
          finish({ error: failure.timedOut });
          request.destroy();
        }, options.timeoutMs);
        request.on('error', (error: NodeJS.ErrnoException) =>
          finish(
            error.code === FORBIDDEN_ADDRESS_CODE
              ? { error: FORBIDDEN, final: true }
              : { error: failure.of(error, target.hostname) },
          ),
        );
        request.end(body);
      });
    },
    close() {
      http.destroy();
      https.destroy();
    },
  };
}

const FORBIDDEN = 'refused: the host is, or resolves to, an address paygate may not call';

/** TLS's refusals, by the code Node gives them, in words: what the merchant's certificate needs. */
const TLS_REASONS: Readonly<Record<string, string>> = {
  CERT_HAS_EXPIRED: 'its certificate has expired',
  DEPTH_ZERO_SELF_SIGNED_CERT: 'its certificate is self-signed',
  SELF_SIGNED_CERT_IN_CHAIN: 'its certificate chain holds a self-signed certificate',
  UNABLE_TO_VERIFY_LEAF_SIGNATURE: 'its certificate chain is incomplete (no issuer certificate sent)',
  UNABLE_TO_GET_ISSUER_CERT_LOCALLY: 'its certificate is issued by an authority this server does not trust',
  ERR_TLS_CERT_ALTNAME_INVALID: 'its certificate is not for this host name',
  CERT_NOT_YET_VALID: 'its certificate is not valid yet',
};

/**
 * What a failed attempt records. A name that does not resolve and a TLS refusal say nothing of the host's ports, so
 * they are told in every mode; in live mode a connection refused, reset or left silent are told in the same words.
 */
export function failureWords(
  timeoutMs: number,
  mode: Mode,
): { timedOut: string; of(error: NodeJS.ErrnoException, host: string): string } {
  const merged = `no answer: the connection failed, or nothing came back within ${timeoutMs} ms`;
  const timedOut = mode === 'live' ? merged : `no answer: nothing came back within ${timeoutMs} ms`;
  return {
    timedOut,
    of(error, host) {
      const code = error.code ?? '';
      if (code === 'ENOTFOUND') return `no answer: the name ${host} does not resolve to an address`;
      if (code === 'EAI_AGAIN')
        return `no answer: the name ${host} could not be looked up (the resolver did not answer)`;
      const tls =
        TLS_REASONS[code] ??
        (code.startsWith('ERR_TLS_') || code.startsWith('ERR_SSL_') ? `the TLS handshake failed (${code})` : undefined);
      if (tls) return `no answer: TLS refused the receiver: ${tls}`;
      if (mode === 'live') return merged;
      if (code === 'ECONNREFUSED') return 'no answer: the connection failed: refused (nothing listens there)';
      if (code === 'ECONNRESET' || error.message === 'socket hang up')
        return 'no answer: the connection failed: reset before an answer came';
      if (code === 'EHOSTUNREACH' || code === 'ENETUNREACH')
        return 'no answer: the connection failed: the host cannot be reached';
      return merged;
    },
  };
}
