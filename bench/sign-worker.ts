/** Signs a batch of requests in a worker thread: RSA signing is the slow part of preparing a run. */
import { parentPort, workerData } from 'node:worker_threads';
import { signRequest } from '@paygate/client';

export interface SignJob {
  appId: string;
  privateKeyPem: string;
  host: string;
  method: string;
  target: string;
  body: string;
  count: number;
}

const job = workerData as SignJob;
const requests: string[] = [];
for (let i = 0; i < job.count; i += 1) {
  const signed = signRequest({ appId: job.appId, privateKey: job.privateKeyPem, method: job.method, target: job.target, body: job.body });
  const body = Buffer.from(job.body, 'utf8');
  requests.push(
    `${job.method} ${job.target} HTTP/1.1\r\nHost: ${job.host}\r\nAccept: */*\r\n` +
      `Credential: ${signed.Credential}\r\nNonce: ${signed.Nonce}\r\nSignature: ${signed.Signature}\r\n` +
      (body.length > 0 ? `Content-Type: application/json\r\nContent-Length: ${body.length}\r\n` : '') +
      `\r\n${body.toString('latin1')}`,
  );
}
parentPort!.postMessage(requests);
