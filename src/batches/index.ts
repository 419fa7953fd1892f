export { cancelBatch, createBatch, getBatch } from './batches.js';
export { BATCH_ERRORS } from './errors.js';
export { batchesModule } from './module.js';
export { CreateBatchQuery } from './schemas.js';
