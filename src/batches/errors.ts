import { defineErrors } from '../platform/errors.js';

/** Merchant-initiated batches (codes 6xxxxx). Field rules refuse with the platform's 100207. */
export const BATCH_ERRORS = defineErrors({
  batchNotFound: { code: '600101', status: 404, message: 'Batch not found.' },
  batchNotCancellable: { code: '600102', status: 400, message: 'The batch has finished (success, failed or cancelled): there is nothing left to cancel.' },
  batchFileMissing: {
    code: '600103', status: 400,
    message: 'Give the file: batch.file_url in a JSON body, or the file itself as the body (Content-Type text/csv or the XLSX media type).',
  },
});
