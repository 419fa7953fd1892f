import type { LoadPlan, LoadResult } from './load-generator.js';
import type { RequestTemplate } from './sign-worker.js';

/**
 * What posting to the ledger costs the hottest write path: order create + card payment, on two fresh servers started
 * alike but for PAYGATE_LEDGER (on, off), measured in alternating rounds (on then off, off then on, ...) so that
 * neither gains from the machine warming up or from running second. Each side's figure is the median of its rounds.
 */
export const LEDGER_SCENARIO = 'order create + card payment, ledger on and off';
/** The bound: the ledger costs at most this share of create + pay's rate. */
export const LEDGER_MAX_LOSS = 0.1;

export interface LedgerServer {
  port: number;
  /** Signs operations for this server's demo app. */
  sign(operations: RequestTemplate[][]): Promise<string[][]>;
}

export interface LedgerCostBench {
  run: string;
  rounds: number;
  /** Operations one round may use at most. */
  perRound: number;
  start(ledger: 'on' | 'off'): Promise<LedgerServer>;
  load(plan: Pick<LoadPlan, 'port' | 'operations' | 'cycle'>): Promise<LoadResult>;
  progress(text: string): void;
}

export interface LedgerCostResult {
  rounds: Array<{ on: LoadResult; off: LoadResult }>;
  on: number;
  off: number;
  /** 1 - on / off. */
  loss: number;
}

const CARD = {
  number: '4242424242424242',
  exp_month: '12',
  exp_year: String(new Date().getUTCFullYear() + 3),
  cvv: '123',
  holder_name: 'Bench',
};

const createAndPay = (run: string, side: string, i: number): RequestTemplate[] => [
  {
    method: 'POST',
    target: '/svc/payment/api/v1/openapi/orders',
    body: JSON.stringify({
      order: { reference_number: `L-${run}-${side}-${i}`, currency: 'HKD', charge_fee: '21.00' },
    }),
  },
  {
    method: 'POST',
    target: '/svc/payment/api/v1/openapi/open_payments',
    body: JSON.stringify({ reference_number: `L-${run}-${side}-${i}`, payment: { credit_card: CARD } }),
  },
];

export async function ledgerCostScenario(bench: LedgerCostBench): Promise<LedgerCostResult> {
  const on = await bench.start('on');
  const off = await bench.start('off');
  bench.progress(`${LEDGER_SCENARIO}: signing ${2 * bench.rounds * bench.perRound} operations... `);
  const total = bench.rounds * bench.perRound;
  const signedOn = await on.sign(Array.from({ length: total }, (_, i) => createAndPay(bench.run, 'on', i)));
  const signedOff = await off.sign(Array.from({ length: total }, (_, i) => createAndPay(bench.run, 'off', i)));
  const rounds: LedgerCostResult['rounds'] = [];
  for (let round = 0; round < bench.rounds; round += 1) {
    const slice = (signed: string[][]) => signed.slice(round * bench.perRound, (round + 1) * bench.perRound);
    const measure = (server: LedgerServer, signed: string[][]) =>
      bench.load({ port: server.port, operations: slice(signed), cycle: false });
    bench.progress(`round ${round + 1}... `);
    if (round % 2 === 0) {
      const withLedger = await measure(on, signedOn);
      rounds.push({ on: withLedger, off: await measure(off, signedOff) });
    } else {
      const withoutLedger = await measure(off, signedOff);
      rounds.push({ on: await measure(on, signedOn), off: withoutLedger });
    }
  }
  bench.progress('done\n');
  const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
  const onRate = median(rounds.map((r) => r.on.operationsPerSecond));
  const offRate = median(rounds.map((r) => r.off.operationsPerSecond));
  return { rounds, on: onRate, off: offRate, loss: Math.round((1 - onRate / offRate) * 1000) / 1000 };
}

export function ledgerCostReport(result: LedgerCostResult): string[] {
  return [
    `${LEDGER_SCENARIO} (${result.rounds.length} alternating rounds, median of each side):`,
    `  with the ledger ${result.on} ops/s, without ${result.off} ops/s: the ledger costs ${(result.loss * 100).toFixed(1)}% ` +
      `(bound ${LEDGER_MAX_LOSS * 100}%: ${result.loss <= LEDGER_MAX_LOSS ? 'met' : 'MISSED'})`,
    ...result.rounds.map(
      (r, i) =>
        `  round ${i + 1}: on ${r.on.operationsPerSecond} ops/s (p50 ${r.on.latencyMs.p50} ms, p99 ${r.on.latencyMs.p99} ms), ` +
        `off ${r.off.operationsPerSecond} ops/s (p50 ${r.off.latencyMs.p50} ms, p99 ${r.off.latencyMs.p99} ms)`,
    ),
  ];
}
