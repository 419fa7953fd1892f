import { Agent as HttpAgent, request as httpRequest, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { Mode } from '../platform/config.js';
import { FORBIDDEN_ADDRESS_CODE, guardedLookup } from '../platform/outbound.js';
import { isForbiddenHost } from '../platform/urls.js';
import { BatchFileError } from './sheet-row.js';

export interface FetchLimits {
  /** The whole exchange, from connecting to the last byte. */
  timeoutMs: number;
  maxBytes: number;
}

/**
 * Downloads a batch's `file_url`, handing each chunk to `write` as it arrives (and waiting for it: a slow writer slows
 * the download, never fills memory): http or https only, no credentials, no redirect followed (a 3xx fails the batch),
 * the
 * whole exchange within `timeoutMs`, at most `maxBytes` (told by Content-Length or counted as it arrives), and in
 * live mode never from this machine or a private network, checked on the address the name resolves to
 * (DESIGN.md trap 8). Every failure is a {@link BatchFileError} whose reason the merchant may read: what the
 * server answered, or that nothing came, never what lies behind a refused address.
 */
export async function fetchBatchFile(
  url: string,
  write: (chunk: Buffer) => Promise<void>,
  options: FetchLimits & { mode: Mode },
): Promise<void> {
  let target: URL;
  try {
    target = new URL(url);
  } catch {
    throw new BatchFileError('file_url is not a URL.');
  }
  if (target.protocol !== 'http:' && target.protocol !== 'https:')
    throw new BatchFileError('file_url must be an http or https URL.');
  // Refused when the batch is created; a URL stored before that rule is still never sent with its credentials.
  if (target.username !== '' || target.password !== '')
    throw new BatchFileError('file_url must not carry credentials.');
  if (isForbiddenHost(target.hostname, options.mode)) throw new BatchFileError(REFUSED);
  const secure = target.protocol === 'https:';
  const agent = new (secure ? HttpsAgent : HttpAgent)({ keepAlive: false, lookup: guardedLookup(options.mode) });
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), options.timeoutMs);
  // What the writer threw (the database, a batch cancelled meanwhile) is the caller's to handle, not the file's fault.
  let writerFailure: { error: unknown } | undefined;
  try {
    const response = await new Promise<IncomingMessage>((resolve, reject) => {
      const request = (secure ? httpsRequest : httpRequest)(
        target,
        {
          method: 'GET',
          agent,
          signal: controller.signal,
          headers: { accept: 'text/csv, application/vnd.openxmlformats-officedocument.spreadsheetml.sheet, */*' },
        },
        resolve,
      );
      request.on('error', reject);
      request.end();
    });
    const status = response.statusCode ?? 0;
    if (status >= 300 && status < 400) {
      response.destroy();
      throw new BatchFileError(
        `file_url answered ${status}, a redirect: paygate does not follow redirects; give the file's own address.`,
      );
    }
    if (status !== 200) {
      response.destroy();
      throw new BatchFileError(`file_url answered ${status}, not 200 with the file.`);
    }
    const declared = Number(response.headers['content-length']);
    if (Number.isFinite(declared) && declared > options.maxBytes) {
      response.destroy();
      throw new BatchFileError(tooLarge(options.maxBytes));
    }
    let received = 0;
    response.on('data', (chunk: Buffer) => {
      received += chunk.length;
      if (received > options.maxBytes) response.destroy(new BatchFileError(tooLarge(options.maxBytes)));
    });
    const sink = new Writable({
      write: (chunk: Buffer, _encoding, done) =>
        void write(chunk).then(
          () => done(),
          (error: unknown) => {
            writerFailure = { error };
            done(error instanceof Error ? error : new Error(String(error)));
          },
        ),
    });
    await pipeline(response, sink, { signal: controller.signal });
  } catch (error) {
    if (writerFailure) throw writerFailure.error;
    if (error instanceof BatchFileError) throw error;
    if ((error as NodeJS.ErrnoException).code === FORBIDDEN_ADDRESS_CODE) throw new BatchFileError(REFUSED);
    if (controller.signal.aborted)
      throw new BatchFileError(
        `file_url did not give the whole file within ${options.timeoutMs % 1000 === 0 ? `${options.timeoutMs / 1000} s` : `${options.timeoutMs} ms`}.`,
      );
    throw new BatchFileError('file_url could not be fetched: the connection failed.');
  } finally {
    clearTimeout(timer);
    agent.destroy();
  }
}

const REFUSED = 'file_url is, or resolves to, an address paygate may not fetch from.';
const tooLarge = (maxBytes: number) =>
  `The file at file_url is larger than ${maxBytes >= 2 ** 20 ? `${Number((maxBytes / 2 ** 20).toFixed(1))} MiB` : `${maxBytes} bytes`}, the most a batch file may be.`;
