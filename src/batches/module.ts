import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { defineModule } from '../module.js';
import { merchantJob } from '../scheduler/scheduler.js';
import { BATCH_COMMAND } from './cli.js';
import { BATCH_ERRORS } from './errors.js';
import { BATCH_EVENTS } from './events.js';
import { giveUpFile, giveUpRun } from './fail.js';
import { FETCH_JOB, fetchBatch, LOAD_JOB, loadBatch } from './load.js';
import { BATCH_ROUTES } from './routes.js';
import { RUN_JOB, runRows } from './run.js';

/** Merchant-initiated batches (operation 5): a CSV or XLSX file of payments, captures, voids and refunds, run row by row. */
export const batchesModule = defineModule({
  name: 'batches',
  routes: BATCH_ROUTES,
  tags: [{ name: 'batches', description: 'Merchant-initiated transactions in batches, from CSV and XLSX files.' }],
  errors: BATCH_ERRORS,
  events: Object.values(BATCH_EVENTS),
  jobs: [
    merchantJob(FETCH_JOB, fetchBatch, { waitsOnNetwork: true, giveUp: giveUpFile }),
    merchantJob(LOAD_JOB, loadBatch, { giveUp: giveUpFile }),
    merchantJob(RUN_JOB, runRows, { alone: true, giveUp: giveUpRun }),
  ],
  commands: [BATCH_COMMAND],
  // Earlier versions spooled each file, in clear, to this folder while reading it, and a crash left it there.
  atStart: (platform) => rm(join(platform.config.dataDir, 'batch-files'), { recursive: true, force: true }),
});
