import { defineErrors } from '../platform/errors.js';

/** Merchant-initiated batches (codes 6xxxxx). Field rules refuse with the platform's 100207. */
export const BATCH_ERRORS = defineErrors({
  batchNotFound: { code: '600101', status: 404, message: 'Batch not found.' },
  batchNotCancellable: {
    code: '600102',
    status: 400,
    message: 'The batch has finished (success, failed or cancelled): there is nothing left to cancel.',
  },
  batchFileMissing: {
    code: '600103',
    status: 400,
    message:
      'Give the file: batch.file_url in a JSON body, or the file itself as the body (Content-Type text/csv or the XLSX media type).',
  },
  batchFileMisnumbered: {
    code: '600104',
    status: 400,
    message:
      "The file's rows or cells are misnumbered: each row numbered once, in order, from 1 to 1048576, and each cell in its row, from column A to XFD.",
  },
});
