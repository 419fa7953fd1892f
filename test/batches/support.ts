import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
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
export async function customerWithToken(client: PaygateClient, card: string = CARDS.frictionless): Promise<{ customer: string; token: string }> {
  const customer = await client.customers.create({ reference_number: `C-${randomUUID()}`, name: 'Chan Tai Man', phone: '91234567' });
  const token = await client.customers.bindCard(customer.uuid, bindingCard(card, { exp_month: '12', exp_year: '2040' }));
  assert.equal(token.state, 'success');
  return { customer: customer.uuid, token: token.token };
}
