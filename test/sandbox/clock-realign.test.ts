import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { paidOrder } from '../support/fixtures.js';
import { createTestSchema, POSTGRES_URL } from '../support/postgres.js';
import { startTestServer, type TestServer } from '../support/server.js';

// The sandbox clock keeps the wall due time of waiting work in step with its business due time (docs/sandbox.md):
// on the way it realigns only the work falling due, and all of it at the end of a move and when a server starts.

const DAY = 86_400;

async function expiryJob(server: TestServer, merchantId: string) {
  const job = await server.platform.db
    .selectFrom('jobs')
    .select(['id', 'due_at', 'due_wall_at', 'state'])
    .where('kind', '=', 'orders.expire_authorization')
    .where('merchant_id', '=', merchantId)
    .executeTakeFirstOrThrow();
  const { clock_offset_ms: offset } = await server.platform.db
    .selectFrom('merchants')
    .select('clock_offset_ms')
    .where('id', '=', merchantId)
    .executeTakeFirstOrThrow();
  return { ...job, offset };
}

describe('the sandbox clock and waiting work', () => {
  test('a move past some work leaves the work still waiting due at its business time; a server starting puts back what a stopped move left out', async () => {
    const schema = POSTGRES_URL ? await createTestSchema(POSTGRES_URL) : undefined;
    const dataDir = mkdtempSync(join(tmpdir(), 'paygate-clock-'));
    const servers: TestServer[] = [];
    try {
      const first = await startTestServer({ dataDir, databaseUrl: schema?.url });
      servers.push(first);
      const merchant = await first.newMerchant();
      // An authorisation: its expiry is due in 7 days. Settlement comes within the day: the move below stops there
      // (and realigns what falls due by then), and leaves the authorisation's expiry waiting.
      await paidOrder(merchant.client, '5.00', 'pre_authorize');
      await merchant.client.sandbox.advanceClock(DAY);
      const waiting = await expiryJob(first, merchant.merchantId);
      assert.equal(waiting.state, 'pending');
      assert.ok(waiting.offset > (DAY - 60) * 1000, `the clock moved a day (offset ${waiting.offset} ms)`);
      assert.equal(
        waiting.due_wall_at,
        waiting.due_at - waiting.offset,
        'due on the wall clock when the business clock reaches it',
      );
      // As a process stopped in the middle of a move would leave it: the row due a day later on the wall clock.
      await first.platform.db
        .updateTable('jobs')
        .set({ due_wall_at: waiting.due_wall_at + DAY * 1000 })
        .where('id', '=', waiting.id)
        .execute();
      await servers.pop()!.close();
      const second = await startTestServer({ dataDir, databaseUrl: schema?.url });
      servers.push(second);
      const restarted = await expiryJob(second, merchant.merchantId);
      assert.equal(restarted.due_wall_at, restarted.due_at - restarted.offset);
    } finally {
      for (const server of servers) await server.close();
      await schema?.drop();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
