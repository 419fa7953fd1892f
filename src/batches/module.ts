import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { defineModule } from '../module.js';
import { BATCH_COMMAND } from './cli.js';
import { BATCH_ERRORS } from './errors.js';
import { BATCH_EVENTS } from './events.js';
import { BATCH_JOBS } from './jobs.js';
import { BATCH_ROUTES } from './routes.js';

/**
 * Merchant-initiated batches (operation 5): a CSV or XLSX file of payments, captures, voids and refunds, run row by
 * row.
 */
export const batchesModule = defineModule({
  name: 'batches',
  routes: BATCH_ROUTES,
  tags: [{ name: 'batches', description: 'Merchant-initiated transactions in batches, from CSV and XLSX files.' }],
  errors: BATCH_ERRORS,
  events: Object.values(BATCH_EVENTS),
  jobs: BATCH_JOBS,
  commands: [BATCH_COMMAND],
  // Earlier versions spooled each file, in clear, to this folder while reading it, and a crash left it there.
  atStart: (platform) => rm(join(platform.config.dataDir, 'batch-files'), { recursive: true, force: true }),
});
