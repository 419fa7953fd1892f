import { readFileSync } from 'node:fs';
import type { BatchErrorPage, BatchInfo, PaygateClient } from '@paygate/client';
import { defineCommand, defineCommandGroup, JSON_OPTION } from '../cli/command.js';
import { CommandFailure } from '../cli/failures.js';
import { print } from '../cli/output.js';
import { APP_CLIENT_OPTIONS, appClient, unreachable } from '../merchants/index.js';

const FINISHED = ['success', 'failed', 'cancelled'];

const UPLOAD = defineCommand({
  name: 'upload',
  summary: 'upload a CSV or XLSX batch file to a running server; with --wait, follow it to the end',
  description:
    'Signs as the demo app of the data folder (PAYGATE_DATA_DIR) unless --app and --key say otherwise, and sends the file ' +
    'as the body of POST batch_mit_transactions. With --wait, shows the rows done, the failures and the rate until the batch ' +
    'finishes (a bar on a terminal, a plain line every few seconds elsewhere), then a summary with the failed rows and their ' +
    'reasons, and exits with 1 unless the batch ends in success with no row failed.',
  arguments: [{ name: 'file', description: 'the CSV or XLSX file' }],
  options: {
    ...APP_CLIENT_OPTIONS,
    name: { type: 'string', value: 'NAME', description: "the batch's name (the file's name by default)" },
    wait: { type: 'boolean', description: 'follow the batch until it finishes' },
    json: JSON_OPTION,
  },
  async run({ options, args }) {
    let bytes: Buffer;
    try {
      bytes = readFileSync(args.file);
    } catch (error) {
      throw new CommandFailure(
        `cannot read ${args.file}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`,
      );
    }
    const kind = bytes.subarray(0, 4).equals(Buffer.from([0x50, 0x4b, 0x03, 0x04])) ? 'xlsx' : 'csv';
    const { client, baseUrl, timeoutSeconds } = appClient(options);
    const calling = <T>(work: Promise<T>) =>
      work.catch((error: unknown) => {
        throw unreachable(baseUrl, timeoutSeconds, error);
      });
    const name = options.name ?? args.file.split(/[\\/]/).pop()!;
    let batch = await calling(client.batches.upload(bytes, { kind, batchName: name }));
    if (!options.wait) {
      print(options, { batch_info: batch }, () => summary(batch));
      return 0;
    }
    batch = await follow(client, batch, calling, !options.json && process.stderr.isTTY === true);
    const { errors, total } =
      batch.failed_records > 0
        ? await calling(client.batches.errors(batch.id, { limit: 20 }))
        : { errors: [], total: 0 };
    print(options, { batch_info: batch, errors }, () =>
      [summary(batch), ...failedRows(batch, errors, total)].join('\n'),
    );
    // A batch that ran but failed rows has not done what the file asked: a script must not take it for done.
    return batch.upload_status === 'success' && batch.failed_records === 0 ? 0 : 1;
  },
});

const SHOW = defineCommand({
  name: 'show',
  summary: "show a batch's status and counters, and its failed rows",
  arguments: [{ name: 'batchId', description: 'the batch, by the id paygate gave it' }],
  options: { ...APP_CLIENT_OPTIONS, json: JSON_OPTION },
  async run({ options, args }) {
    const { client, baseUrl, timeoutSeconds } = appClient(options);
    const calling = <T>(work: Promise<T>) =>
      work.catch((error: unknown) => {
        throw unreachable(baseUrl, timeoutSeconds, error);
      });
    const { batch_info: batch } = await calling(client.batches.get(args.batchId, { limit: 1 }));
    const { errors, total } = await calling(client.batches.errors(args.batchId, { limit: 20 }));
    print(options, { batch_info: batch, errors }, () =>
      [summary(batch), ...failedRows(batch, errors, total)].join('\n'),
    );
  },
});

export const BATCH_COMMAND = defineCommandGroup({
  name: 'batch',
  summary: 'upload merchant-initiated batch files and follow them',
  commands: [UPLOAD, SHOW],
});

/** The failed rows shown (the first of them), each with its column and reason, and how many more there are. */
function failedRows(batch: BatchInfo, errors: BatchErrorPage['errors'], total: number): string[] {
  if (errors.length === 0) return [];
  const lines = errors.map((error) => `  row ${error.row}${error.column ? ` (${error.column})` : ''}: ${error.reason}`);
  const more =
    total > errors.length
      ? [`  … and ${total - errors.length} more (paygate batch show, or GET .../${batch.id}/errors)`]
      : [];
  return ['failed rows:', ...lines, ...more];
}

/**
 * Polls the batch until it finishes, drawing a progress bar on a terminal (a plain line every few seconds elsewhere).
 */
async function follow(
  client: PaygateClient,
  first: BatchInfo,
  calling: <T>(work: Promise<T>) => Promise<T>,
  tty: boolean,
): Promise<BatchInfo> {
  const started = Date.now();
  let batch = first;
  let lastLine = 0;
  while (!FINISHED.includes(batch.upload_status)) {
    await new Promise((resolve) => setTimeout(resolve, 500));
    batch = (await calling(client.batches.get(batch.id, { limit: 1 }))).batch_info;
    const seconds = (Date.now() - started) / 1000;
    if (tty) process.stderr.write(`\r${bar(batch)} ${progress(batch, seconds)}\u001b[K`);
    else if (Date.now() - lastLine >= 5000) {
      // A log or a pipe reads lines, not a bar redrawn in place.
      process.stderr.write(`batch ${batch.id}: ${progress(batch, seconds)}\n`);
      lastLine = Date.now();
    }
  }
  if (tty) process.stderr.write('\n');
  return batch;
}

const doneRows = (batch: BatchInfo) => batch.successful_records + batch.failed_records + batch.skipped_records;

function bar(batch: BatchInfo): string {
  const width = 30;
  const filled = batch.total_records === 0 ? 0 : Math.round((doneRows(batch) / batch.total_records) * width);
  return `[${'#'.repeat(filled)}${'.'.repeat(width - filled)}]`;
}

function progress(batch: BatchInfo, seconds: number): string {
  const done = doneRows(batch);
  const rate = seconds > 0 ? Math.round(done / seconds) : 0;
  const what =
    batch.total_records === 0 ? `${batch.upload_status}: reading the file` : `${done}/${batch.total_records} rows`;
  return `${what} · ${batch.failed_records} failed · ${rate} rows/s`;
}

function summary(batch: BatchInfo): string {
  const lines = [
    `batch ${batch.id} "${batch.batch_name}": ${batch.upload_status}`,
    `  rows ${batch.total_records}: ${batch.successful_records} succeeded, ${batch.failed_records} failed${batch.skipped_records > 0 ? `, ${batch.skipped_records} skipped` : ''}`,
  ];
  if (batch.failure_reason) lines.push(`  ${batch.failure_reason}`);
  return lines.join('\n');
}
