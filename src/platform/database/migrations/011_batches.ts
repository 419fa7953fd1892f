import type { Kysely } from 'kysely';

/**
 * Merchant-initiated batches (operation 5): the batch, its file while it waits to be read, and one row per row of
 * the file. A row's key (batch, row number) is what runs each row once, whatever crashes or how many processes
 * share the batch.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('batches')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('merchant_id', 'text', (c) => c.notNull().references('merchants.id'))
    .addColumn('batch_name', 'text', (c) => c.notNull())
    .addColumn('upload_status', 'text', (c) => c.notNull())
    .addColumn('file_url', 'text')
    .addColumn('file_kind', 'text')
    .addColumn('file_bytes', 'bigint')
    .addColumn('total_records', 'integer', (c) => c.notNull())
    .addColumn('successful_records', 'integer', (c) => c.notNull())
    .addColumn('failed_records', 'integer', (c) => c.notNull())
    .addColumn('skipped_records', 'integer', (c) => c.notNull())
    .addColumn('failure_reason', 'text')
    .addColumn('app_id', 'text')
    .addColumn('created_by', 'text', (c) => c.notNull())
    .addColumn('started_at', 'bigint')
    .addColumn('finished_at', 'bigint')
    .addColumn('deleted_at', 'bigint')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('batches_list').on('batches').columns(['merchant_id', 'created_at']).execute();

  await db.schema
    .createTable('batch_file_parts')
    .addColumn('batch_id', 'text', (c) => c.notNull().references('batches.id'))
    .addColumn('part', 'integer', (c) => c.notNull())
    .addColumn('merchant_id', 'text', (c) => c.notNull())
    .addColumn('content', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('batch_file_parts_key', ['batch_id', 'part'])
    .execute();

  await db.schema
    .createTable('batch_rows')
    .addColumn('batch_id', 'text', (c) => c.notNull().references('batches.id'))
    .addColumn('row_number', 'integer', (c) => c.notNull())
    .addColumn('merchant_id', 'text', (c) => c.notNull())
    .addColumn('state', 'text', (c) => c.notNull())
    .addColumn('action', 'text')
    .addColumn('instruction', 'text')
    .addColumn('card_masked', 'text')
    .addColumn('card_sealed', 'text')
    .addColumn('remark', 'text')
    .addColumn('order_id', 'text')
    .addColumn('transaction_id', 'text')
    .addColumn('error_column', 'text')
    .addColumn('error_reason', 'text')
    .addColumn('outcome', 'text')
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('batch_rows_key', ['batch_id', 'row_number'])
    .execute();
  await db.schema
    .createIndex('batch_rows_state')
    .on('batch_rows')
    .columns(['batch_id', 'state', 'row_number'])
    .execute();
}
