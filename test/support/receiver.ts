import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedWebhook {
  /** Path and query as requested. */
  target: string;
  headers: IncomingHttpHeaders;
  rawBody: Buffer;
  receivedAt: number;
}

/** How the receiver answers one request: a status, or `hang` (never answers; the sender times out). */
export type Answer = number | 'hang' | 'reset';

/**
 * A webhook receiver on 127.0.0.1 for tests: keeps every request with its raw body, and answers as `answer`
 * says (200 unless told otherwise).
 */
export class TestReceiver {
  readonly received: ReceivedWebhook[] = [];
  answer: (request: ReceivedWebhook) => Answer = () => 200;
  private server!: Server;
  private waiters: Array<() => void> = [];
  url = '';

  static async start(): Promise<TestReceiver> {
    const receiver = new TestReceiver();
    receiver.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        const request = {
          target: req.url ?? '',
          headers: req.headers,
          rawBody: Buffer.concat(chunks),
          receivedAt: Date.now(),
        };
        receiver.received.push(request);
        for (const wake of receiver.waiters.splice(0)) wake();
        const answer = receiver.answer(request);
        if (answer === 'hang') return;
        if (answer === 'reset') {
          req.socket.destroy();
          return;
        }
        res.writeHead(answer, { 'content-type': 'text/plain' }).end(answer < 300 ? 'ok' : 'no');
      });
    });
    receiver.server.keepAliveTimeout = 60_000;
    await new Promise<void>((resolve) => receiver.server.listen(0, '127.0.0.1', resolve));
    receiver.url = `http://127.0.0.1:${(receiver.server.address() as AddressInfo).port}`;
    return receiver;
  }

  /** Requests whose X-Event-ID or X-Action match. */
  matching(filter: { eventId?: string; action?: string; path?: string }): ReceivedWebhook[] {
    return this.received.filter(
      (r) =>
        (filter.eventId === undefined || r.headers['x-event-id'] === filter.eventId) &&
        (filter.action === undefined || r.headers['x-action'] === filter.action) &&
        (filter.path === undefined || r.target.startsWith(filter.path)),
    );
  }

  /** Waits until `count` requests matching the filter have arrived (fails after `timeoutMs`). */
  async waitFor(
    filter: { eventId?: string; action?: string; path?: string },
    count = 1,
    timeoutMs = 10_000,
  ): Promise<ReceivedWebhook[]> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = this.matching(filter);
      if (found.length >= count) return found;
      const left = deadline - Date.now();
      if (left <= 0)
        throw new Error(
          `waited ${timeoutMs} ms for ${count} webhook(s) matching ${JSON.stringify(filter)}; got ${found.length}`,
        );
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, Math.min(left, 200));
        this.waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
