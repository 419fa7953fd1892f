/**
 * Named snapshots of a merchant's sandbox world (issue 36, point 6: "saving and restoring a merchant with 10,000 orders
 * each under 3 s on SQLite here").
 *
 * Setup, timed but not judged: ORDERS orders of the demo merchant, each paid by card through the signed API (so each
 * has its transaction, its events, its ledger entries and the sandbox acquirer's record), SETUP_CONCURRENCY requests
 * at a time. Timed, each a request from the client's side to its answer: a save of the merchant's whole world, a
 * restore of it, then the same again (a forced save over the first, and its restore). Runs only when BENCH_ONLY names
 * it.
 */
import type { PaygateClient } from '@paygate/client';

export const SNAPSHOT_SCENARIO = 'snapshots';
/** The bound for a save and for a restore, on SQLite. */
export const SNAPSHOT_TARGET_SECONDS = 3;
const ORDERS = Number(process.env.BENCH_SNAPSHOT_ORDERS ?? 10_000);
const SETUP_CONCURRENCY = Number(process.env.BENCH_SNAPSHOT_CONCURRENCY ?? 32);

export interface SnapshotBench {
  client: PaygateClient;
  run: string;
  progress(text: string): void;
}

export interface SnapshotResult {
  scenario: string;
  orders: number;
  setupSeconds: number;
  rows: number;
  bytes: number;
  /** Seconds, each round: a save, then a restore of it. */
  saves: number[];
  restores: number[];
  meetsTarget: boolean;
}

export async function snapshotScenario(b: SnapshotBench): Promise<SnapshotResult> {
  const { client } = b;
  const card = {
    number: '4242424242424242',
    exp_month: '12',
    exp_year: String(new Date().getUTCFullYear() + 3),
    cvv: '123',
    holder_name: 'Bench',
    consume_mode: 'sales' as const,
  };
  b.progress(`snapshots: ${ORDERS} orders paid by card... `);
  const setupStarted = performance.now();
  let next = 0;
  const worker = async () => {
    while (next < ORDERS) {
      const i = next++;
      const reference = `SNAP-${b.run}-${i}`;
      await client.orders.create({ reference_number: reference, currency: 'HKD', charge_fee: '12.50' });
      const paid = await client.orders.pay({ reference_number: reference }, { credit_card: card });
      if (!paid.transaction.success) throw new Error(`order ${reference} was not paid`);
    }
  };
  await Promise.all(Array.from({ length: SETUP_CONCURRENCY }, worker));
  const setupSeconds = (performance.now() - setupStarted) / 1000;
  const timed = async <T>(work: () => Promise<T>): Promise<[T, number]> => {
    const started = performance.now();
    const result = await work();
    return [result, Math.round((performance.now() - started) / 10) / 100];
  };
  const saves: number[] = [];
  const restores: number[] = [];
  let rows = 0;
  let bytes = 0;
  for (let round = 0; round < 2; round += 1) {
    b.progress(`save ${round + 1}... `);
    const [saved, saveSeconds] = await timed(() => client.labSnapshots.save(`bench-${b.run}`, { force: round > 0 }));
    rows = saved.snapshot.row_count;
    bytes = saved.snapshot.byte_count;
    b.progress(`restore ${round + 1}... `);
    const [, restoreSeconds] = await timed(() => client.labSnapshots.restore(`bench-${b.run}`));
    saves.push(saveSeconds);
    restores.push(restoreSeconds);
  }
  const worst = Math.max(...saves, ...restores);
  b.progress(
    `done\nsnapshots: ${ORDERS} paid orders, ${rows} rows, ${(bytes / 1024 / 1024).toFixed(1)} MiB of JSON; ` +
      `save ${saves.join(' s, ')} s; restore ${restores.join(' s, ')} s (target ${SNAPSHOT_TARGET_SECONDS} s each)\n`,
  );
  return {
    scenario: SNAPSHOT_SCENARIO,
    orders: ORDERS,
    setupSeconds: Math.round(setupSeconds * 10) / 10,
    rows,
    bytes,
    saves,
    restores,
    meetsTarget: worst < SNAPSHOT_TARGET_SECONDS,
  };
}
