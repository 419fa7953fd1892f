import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import { after, before, describe, test } from 'node:test';
import type { PaygateClient } from '@paygate/client';
import { startTestServer, type TestServer } from '../support/server.js';
import { csv, customerWithToken, type FileServer, finished, startFileServer } from './support.js';

// One merchant's slow files stall no one else (issue 34, finding 1): while merchant A has ten batches whose file_url
// never answers, merchant B's 100-row batch runs to its end and B's sandbox clock moves, each while all of A's
// fetches are still waiting. Before, the scheduler ran jobs one after another, and each of A's fetches held the one
// lane for the whole fetch timeout: B's batch waited minutes. How long B took, idle and beside A, is measured by
// the bench (bench/fairness.ts); here only the order of things is asserted.

let server: TestServer;
let files: FileServer;
/** Requests for a file that never comes, held open until the end. */
const hanging: ServerResponse[] = [];

before(async () => {
  // Far longer than this test: none of A's fetches can end on its own while B works.
  server = await startTestServer({ env: { PAYGATE_BATCH_FETCH_TIMEOUT_MS: '300000' } });
  files = await startFileServer();
  for (let n = 0; n < 10; n += 1) files.served.set(`/never/${n}.csv`, (response) => void hanging.push(response));
});
after(async () => {
  await files.close();
  await server.close();
});

async function hundredRows(client: PaygateClient, label: string): Promise<string> {
  const { customer, token } = await customerWithToken(client);
  return csv([
    ['Action', 'Reference Number', 'Customer UUID', 'Amount', 'Token ID'],
    ...Array.from({ length: 100 }, (_, i) => [
      'payment',
      `${label}-${i}-${randomUUID().slice(0, 8)}`,
      customer,
      '1.00',
      token,
    ]),
  ]);
}

describe('fair job lanes', () => {
  test("ten of A's batches whose file never comes keep neither B's batch nor B's clock waiting", async (t) => {
    const a = (await server.newMerchant({ name: 'Slow files' })).client;
    const b = (await server.newMerchant({ name: 'Punctual' })).client;

    const idleStarted = performance.now();
    const idle = await finished(b, (await b.batches.upload(await hundredRows(b, 'IDLE'), { kind: 'csv' })).id);
    const idleMs = performance.now() - idleStarted;
    assert.deepEqual([idle.upload_status, idle.successful_records], ['success', 100]);

    const stalled = [];
    for (let n = 0; n < 10; n += 1)
      stalled.push((await a.batches.create({ file_url: `${files.url}/never/${n}.csv` })).id);
    // A's fetches have begun: its share of the network slots is asking, and waiting.
    for (let i = 0; i < 400 && hanging.length < 2; i += 1) await new Promise((resolve) => setTimeout(resolve, 25));
    assert.ok(hanging.length >= 2, `A's fetches began (${hanging.length} waiting)`);

    const file = await hundredRows(b, 'BESIDE');
    const besideStarted = performance.now();
    const beside = await finished(b, (await b.batches.upload(file, { kind: 'csv' })).id, 60_000);
    const besideMs = performance.now() - besideStarted;
    assert.deepEqual([beside.upload_status, beside.successful_records], ['success', 100]);

    const moveStarted = performance.now();
    await b.sandbox.advanceClock(3600);
    const moveMs = performance.now() - moveStarted;

    // Everything of B's ended while every one of A's fetches still waited for its file.
    for (const id of stalled)
      assert.ok(
        ['pending', 'processing'].includes((await a.batches.get(id)).batch_info.upload_status),
        `A's batch ${id} still waits`,
      );
    assert.ok(
      hanging.every((response) => !response.writableEnded),
      'no file was ever sent to A',
    );
    t.diagnostic(
      `B's 100 rows: ${Math.round(idleMs)} ms idle, ${Math.round(besideMs)} ms beside A's ten stalled files; B's clock move: ${Math.round(moveMs)} ms`,
    );
  });
});
