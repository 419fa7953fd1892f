/** Signs operations in a worker thread: RSA signing is the slow part of preparing a run. */
import { parentPort, workerData } from 'node:worker_threads';
import { signRequest } from '@paygate/client';

export interface RequestTemplate {
  method: string;
  target: string;
  body: string;
}

export interface SignJob {
  appId: string;
  privateKeyPem: string;
  host: string;
  /** Each operation's requests, in order. */
  operations: RequestTemplate[][];
}

const job = workerData as SignJob;

function raw(request: RequestTemplate): string {
  const signed = signRequest({
    appId: job.appId,
    privateKey: job.privateKeyPem,
    method: request.method,
    target: request.target,
    body: request.body,
  });
  const body = Buffer.from(request.body, 'utf8');
  return (
    `${request.method} ${request.target} HTTP/1.1\r\nHost: ${job.host}\r\nAccept: */*\r\n` +
    `Credential: ${signed.Credential}\r\nNonce: ${signed.Nonce}\r\nSignature: ${signed.Signature}\r\n` +
    (body.length > 0 ? `Content-Type: application/json\r\nContent-Length: ${body.length}\r\n` : '') +
    `\r\n${body.toString('latin1')}`
  );
}

parentPort!.postMessage(job.operations.map((operation) => operation.map(raw)));
