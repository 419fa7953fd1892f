import type { Static } from 'typebox';
import type { BatchInfoSchema, BatchRowErrorSchema } from './schemas.js';

/**
 * The batch of the API reference's examples (/docs): this month's membership dues, from a file on the merchant's
 * server.
 */
export const EXAMPLE_BATCH_ID = '019ac3a1-4c2e-7000-9d1f-5b8e2a7c3f60';
export const NEW_BATCH = { file_url: 'https://files.example.com/dues/2026-12.csv', batch_name: 'December dues' };

const CREATED = '2026-12-01T01:00:00.000Z';
const FINISHED = '2026-12-01T01:00:42.000Z';

export function exampleBatch(status: 'pending' | 'success' | 'cancelled' = 'success'): Static<typeof BatchInfoSchema> {
  const done = status === 'success';
  return {
    id: EXAMPLE_BATCH_ID,
    created_at: CREATED,
    updated_at: status === 'pending' ? CREATED : FINISHED,
    deleted_at: status === 'cancelled' ? FINISHED : '',
    store_id: 1,
    batch_name: NEW_BATCH.batch_name,
    upload_status: status,
    total_records: status === 'pending' ? 0 : 1200,
    successful_records: done ? 1187 : status === 'cancelled' ? 640 : 0,
    failed_records: done ? 13 : status === 'cancelled' ? 6 : 0,
    skipped_records: status === 'cancelled' ? 554 : 0,
    failure_reason: '',
    created_by: 'b7a2c1d0-5e3f-4a8b-9c6d-1e2f3a4b5c6d',
  };
}

export const EXAMPLE_ROW_ERROR: Static<typeof BatchRowErrorSchema> = {
  row: 7,
  column: 'Amount',
  reason: '"12.345" has more decimals than HKD allows (HKD).',
  action: 'payment',
  transaction_id: '',
};

export const EXAMPLE_RESULT_FILE = [
  'Row,Action,Reference Number,Original Transaction ID,Customer UUID,Amount,Currency,Token ID,Card Number,Remark,Status,Transaction ID,Column,Outcome',
  '2,payment,DUES-2026-12-0001,,0f6c3b9e-2d4a-4e1b-8c7d-5a9f1e2b3c4d,388.00,HKD,tok_7Hq2x9,,December dues,succeeded,4c1d9e2f-7a3b-4b8c-9d1e-2f3a4b5c6d7e,,Paid',
  '7,payment,DUES-2026-12-0006,,9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d,12.345,HKD,tok_P0w3rZ,,December dues,failed,,Amount,"""12.345"" has more decimals than HKD allows (HKD)."',
  '',
].join('\r\n');
