import { CreateBatchQuery, cancelBatch, createBatch } from '../../batches/index.js';
import { expiry, majorUnits, SANDBOX_CARDS } from './common.js';
import { defineTrigger, field, type TriggerRun } from './trigger.js';

const NAME = field('batch_name', 'text', "the batch's name (a fresh TRIGGER-BATCH-… by default)");
const ROW_FIELDS = [
  NAME,
  field('reference_number', 'text', "its one row's Reference Number: the order it makes (a fresh one by default)"),
  field('currency', 'text', "its row's Currency (HKD by default)"),
  field('amount', 'amount', "its row's Amount (50 in the currency by default)"),
  field('remark', 'text', "its row's Remark"),
];

/** A CSV cell, quoted: a value set may hold commas, quotes or line breaks. */
const cell = (value: unknown) => `"${String(value).replace(/"/g, '""')}"`;

/** One `payment` row charging the card 4242 4242 4242 4242, as a merchant's file gives it. */
function paymentFile(run: TriggerRun): Buffer {
  const currency = run.value('currency', 'HKD');
  const { exp_month, exp_year } = expiry(run);
  const rows = [
    [
      'Action',
      'Reference Number',
      'Customer UUID',
      'Amount',
      'Currency',
      'Card Number',
      'Expiry Month',
      'Expiry Year',
      'CVC',
      'Remark',
    ],
    [
      'payment',
      run.value('reference_number', run.unique('TRIGGER-BATCH-ROW')),
      '',
      run.value('amount', majorUnits(currency, 50)),
      currency,
      SANDBOX_CARDS.approved,
      exp_month,
      exp_year,
      '123',
      run.value('remark', 'Made by paygate trigger'),
    ],
  ];
  return Buffer.from(`${rows.map((row) => row.map(cell).join(',')).join('\r\n')}\r\n`);
}

/** A batch of this file, as `POST batch_mit_transactions` makes it from a file sent as the body. */
async function newBatch(run: TriggerRun, file: Buffer): Promise<string> {
  const { batch_name: name } = run.check(CreateBatchQuery, {
    batch_name: run.value('batch_name', run.unique('TRIGGER-BATCH')),
  });
  const batch = await createBatch(run.ctx, { file }, name);
  run.made('batch', { id: batch.id });
  return batch.id;
}

export const BATCH_TRIGGERS = [
  defineTrigger({
    kind: 'batch.completed',
    makes: 'a batch uploaded as CSV, of one `payment` row with the card 4242 4242 4242 4242, run to the end',
    clock: 'none',
    fields: ROW_FIELDS,
    run: (run) => newBatch(run, paymentFile(run)),
  }),
  defineTrigger({
    kind: 'batch.failed',
    makes: 'a batch uploaded as a CSV file without the required columns: it cannot be read, and fails',
    clock: 'none',
    fields: [NAME],
    run: (run) => newBatch(run, Buffer.from('Action,Amount\r\npayment,1.00\r\n')),
  }),
  defineTrigger({
    kind: 'batch.cancelled',
    makes: 'a batch of one `payment` row (as for batch.completed), cancelled before it runs',
    clock: 'none',
    fields: ROW_FIELDS,
    async run(run) {
      const id = await newBatch(run, paymentFile(run));
      await cancelBatch(run.ctx, id);
      return id;
    },
  }),
];
