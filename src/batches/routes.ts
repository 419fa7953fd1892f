import Type from 'typebox';
import { clientCall } from '../http/examples.js';
import { listParameters, pageReply } from '../http/list-reply.js';
import { defineRoute, type FileReply } from '../http/route.js';
import { AppError } from '../platform/errors.js';
import { PageQuery } from '../platform/schema.js';
import { BATCH_FILE_TYPES } from './batch-file.js';
import { cancelBatch, createBatch, getBatch, listMerchantBatches } from './batches.js';
import { BATCH_ERRORS } from './errors.js';
import { EXAMPLE_BATCH_ID, EXAMPLE_RESULT_FILE, EXAMPLE_ROW_ERROR, exampleBatch, NEW_BATCH } from './examples.js';
import { presentBatchInfo } from './present.js';
import { resultFile } from './result-file.js';
import {
  BatchCreatedData,
  BatchData,
  BatchErrorsData,
  BatchListData,
  BatchParams,
  CreateBatchBody,
  CreateBatchQuery,
} from './schemas.js';
import type { BatchRecord } from './store.js';
import { batchErrors, batchTransactions } from './views.js';

const BASE = '/svc/payment/api/v1/openapi/batch_mit_transactions';
const TAGS = ['batches'];

const batchReply = (batch: BatchRecord) => ({ batch_info: presentBatchInfo(batch) });

export const BATCH_ROUTES = [
  defineRoute({
    method: 'POST',
    url: BASE,
    operationId: 'createBatch',
    summary:
      'Create a batch of merchant-initiated transactions from a CSV or XLSX file: its file_url, or the file itself as the body.',
    description:
      'Answers at once with upload_status pending: the file is fetched and its rows run in the background (docs/batches.md). ' +
      'To send the file itself, make it the whole body with Content-Type text/csv or application/vnd.openxmlformats-officedocument.spreadsheetml.sheet, ' +
      'and batch_name in the query; the signature covers its bytes as for any body.',
    tags: TAGS,
    body: CreateBatchBody,
    querystring: CreateBatchQuery,
    upload: { mediaTypes: BATCH_FILE_TYPES, limitBytes: (config) => config.batchFileMaxBytes },
    data: BatchCreatedData,
    errors: [BATCH_ERRORS.batchFileMissing, BATCH_ERRORS.batchFileMisnumbered],
    handler: ({ ctx, body, query, file }) => {
      if (file) return createBatch(ctx, { file: file.bytes }, query.batch_name);
      if (!body.batch) throw new AppError(BATCH_ERRORS.batchFileMissing);
      return createBatch(ctx, { fileUrl: body.batch.file_url }, body.batch.batch_name ?? query.batch_name);
    },
    present: batchReply,
    example: {
      request: { body: { batch: NEW_BATCH } },
      reply: { batch_info: exampleBatch('pending') },
      client: clientCall('batches.create', NEW_BATCH),
    },
  }),
  defineRoute({
    method: 'GET',
    url: BASE,
    operationId: 'listBatches',
    summary: 'List batches, newest first, with filter[field][operator]=value (docs/batches.md).',
    tags: TAGS,
    querystring: PageQuery,
    data: BatchListData,
    errors: [],
    handler: async ({ ctx, query }) => {
      const { rows, total } = await listMerchantBatches(ctx, listParameters(query), query);
      return pageReply('batches', query, rows.map(presentBatchInfo), total);
    },
    example: {
      request: { query: { 'filter[upload_status][_eq]': 'success' } },
      reply: { batches: [exampleBatch()], offset: 0, limit: 20, total: 1 },
      client: clientCall('batches.list', { filters: { 'filter[upload_status][_eq]': 'success' } }),
    },
  }),
  defineRoute({
    method: 'GET',
    url: `${BASE}/:id`,
    operationId: 'getBatchTransactions',
    summary: 'Operation 5: a batch and a page of the transactions its rows made, in row order.',
    tags: TAGS,
    params: BatchParams,
    querystring: PageQuery,
    data: BatchData,
    errors: [BATCH_ERRORS.batchNotFound],
    handler: async ({ ctx, params, query }) => {
      const batch = await getBatch(ctx, params.id);
      return { batch_info: presentBatchInfo(batch), transactions: await batchTransactions(ctx, batch, query) };
    },
    example: {
      request: { params: { id: EXAMPLE_BATCH_ID } },
      reply: { batch_info: exampleBatch(), transactions: [] },
      client: clientCall('batches.get', EXAMPLE_BATCH_ID),
    },
  }),
  defineRoute({
    method: 'GET',
    url: `${BASE}/:id/errors`,
    operationId: 'listBatchErrors',
    summary: "A batch's failed rows, in row order: the row, the column at fault and the reason.",
    tags: TAGS,
    params: BatchParams,
    querystring: PageQuery,
    data: BatchErrorsData,
    errors: [BATCH_ERRORS.batchNotFound],
    handler: async ({ ctx, params, query }) => batchErrors(ctx, await getBatch(ctx, params.id), query),
    example: {
      request: { params: { id: EXAMPLE_BATCH_ID } },
      reply: { errors: [EXAMPLE_ROW_ERROR], offset: 0, limit: 20, total: 1 },
      client: clientCall('batches.errors', EXAMPLE_BATCH_ID),
    },
  }),
  defineRoute({
    method: 'GET',
    url: `${BASE}/:id/result.csv`,
    operationId: 'getBatchResultFile',
    summary: 'Every row of a batch and its outcome, as CSV (docs/batches.md for the columns).',
    tags: TAGS,
    params: BatchParams,
    download: { mediaType: 'text/csv; charset=utf-8' },
    data: Type.String({ description: 'The CSV file: a header, then one line per row of the batch.' }),
    errors: [BATCH_ERRORS.batchNotFound],
    handler: async ({ ctx, params }): Promise<FileReply> => {
      const batch = await getBatch(ctx, params.id);
      return { filename: `batch-${batch.id}-result.csv`, body: resultFile(ctx, batch) };
    },
    example: {
      request: { params: { id: EXAMPLE_BATCH_ID } },
      reply: EXAMPLE_RESULT_FILE,
      client: clientCall('batches.resultFile', EXAMPLE_BATCH_ID),
    },
  }),
  defineRoute({
    method: 'POST',
    url: `${BASE}/:id/cancel`,
    operationId: 'cancelBatch',
    summary: 'Cancel a batch still pending or processing: rows not yet run are skipped; rows already sent finish.',
    tags: TAGS,
    params: BatchParams,
    data: BatchCreatedData,
    errors: [BATCH_ERRORS.batchNotFound, BATCH_ERRORS.batchNotCancellable],
    handler: ({ ctx, params }) => cancelBatch(ctx, params.id),
    present: batchReply,
    example: {
      request: { params: { id: EXAMPLE_BATCH_ID } },
      reply: { batch_info: exampleBatch('cancelled') },
      client: clientCall('batches.cancel', EXAMPLE_BATCH_ID),
    },
  }),
];
