import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { BatchInfo, PaygateClient } from '@paygate/client';
import { parse } from 'csv-parse/sync';
import { bindingCard, CARDS } from '../support/fixtures.js';

/** CSV text of these rows, each cell quoted when it must be (RFC 4180), lines ending in CRLF. */
export function csv(rows: string[][], options: { bom?: boolean } = {}): string {
  const cell = (text: string) => (/[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text);
  return `${options.bom ? '\uFEFF' : ''}${rows.map((row) => row.map(cell).join(',')).join('\r\n')}\r\n`;
}

/** The cells of CSV text (a result file), row by row. */
export function parseCsv(text: string): string[][] {
  return parse(text, { relax_column_count: true }) as string[][];
}

export const FINISHED = ['success', 'failed', 'cancelled'];

/** Polls the batch until it finishes (the scheduler runs it in the background). */
export async function finished(client: PaygateClient, id: string, timeoutMs = 30_000): Promise<BatchInfo> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const { batch_info: batch } = await client.batches.get(id, { limit: 1 });
    if (FINISHED.includes(batch.upload_status)) return batch;
    assert.ok(Date.now() < deadline, `batch ${id} still ${batch.upload_status} after ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** A customer of the merchant with a frictionless card bound: its uuid and the token's value. */
export async function customerWithToken(
  client: PaygateClient,
  card: string = CARDS.frictionless,
): Promise<{ customer: string; token: string }> {
  const customer = await client.customers.create({
    reference_number: `C-${randomUUID()}`,
    name: 'Chan Tai Man',
    phone: '91234567',
  });
  const token = await client.customers.bindCard(
    customer.uuid,
    bindingCard(card, { exp_month: '12', exp_year: '2040' }),
  );
  assert.equal(token.state, 'success');
  return { customer: customer.uuid, token: token.token };
}

/** A local server of batch files, for `file_url`: each path answered as `served` says, any other with 404. */
export interface FileServer {
  url: string;
  /** How each path is answered (a file, an error, a response held open). */
  served: Map<string, (response: ServerResponse) => void>;
  close(): Promise<void>;
}

export async function startFileServer(): Promise<FileServer> {
  const served = new Map<string, (response: ServerResponse) => void>();
  const files = createServer((request, response) => {
    const serve = served.get(request.url ?? '');
    if (serve) serve(response);
    else response.writeHead(404).end('no such file');
  });
  await new Promise<void>((resolve) => files.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(files.address() as AddressInfo).port}`,
    served,
    async close() {
      files.closeAllConnections();
      await new Promise((resolve) => files.close(resolve));
    },
  };
}
