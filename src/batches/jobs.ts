import Type from 'typebox';
import { type JobDefinition, merchantJob } from '../scheduler/scheduler.js';
import { giveUpFile, giveUpRun } from './fail.js';
import { FETCH_JOB, fetchBatch, LOAD_JOB, loadBatch } from './load.js';
import { RUN_JOB, runRows } from './run.js';

const BatchPayload = Type.Object({ batchId: Type.String() });
/**
 * A chunk of a batch's rows, from row `first` to row `last`; `look`: how many times it came back for unknown answers.
 */
const ChunkPayload = Type.Object({
  batchId: Type.String(),
  first: Type.Integer(),
  last: Type.Integer(),
  look: Type.Integer(),
});

declare module '../scheduler/job-types.js' {
  interface MerchantJobPayloads {
    'batches.fetch': typeof BatchPayload;
    'batches.load': typeof BatchPayload;
    'batches.run': typeof ChunkPayload;
  }
}

/**
 * The work batches leave due: a file fetched (waiting on the network, beside the lanes), read, and run chunk by chunk.
 */
export const BATCH_JOBS: JobDefinition[] = [
  merchantJob(FETCH_JOB, BatchPayload, { run: fetchBatch, giveUp: giveUpFile, waitsOnNetwork: true }),
  merchantJob(LOAD_JOB, BatchPayload, { run: loadBatch, giveUp: giveUpFile }),
  merchantJob(RUN_JOB, ChunkPayload, { run: runRows, giveUp: giveUpRun, alone: true }),
];
