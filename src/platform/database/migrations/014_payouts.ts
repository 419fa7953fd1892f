import type { Kysely } from 'kysely';

/**
 * Payees and payout requests (operation 9, docs/payouts.md). A payee is the merchant's; deleting one keeps its row
 * (the payouts made to it still name it). A payout request is unique per merchant by its reference, when it has one;
 * its two states (schedule and transfer) live on its row, with the bank's reference of its transfer and the wall
 * time a call to the bank began (for recovery). Each merchant's approval thresholds, by currency.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('payees')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('merchant_id', 'text', (c) => c.notNull().references('merchants.id'))
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('nickname', 'text', (c) => c.notNull())
    .addColumn('email', 'text')
    .addColumn('phone_country_code', 'text')
    .addColumn('phone_number', 'text')
    .addColumn('country', 'text', (c) => c.notNull())
    .addColumn('currency', 'text', (c) => c.notNull())
    .addColumn('transfer_method', 'text', (c) => c.notNull())
    .addColumn('bank_code', 'text')
    .addColumn('account_name', 'text')
    .addColumn('account_number', 'text')
    .addColumn('fps_email', 'text')
    .addColumn('fps_mobile', 'text')
    .addColumn('fps_id', 'text')
    .addColumn('app_id', 'text')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('deleted_at', 'bigint')
    .execute();
  await db.schema.createIndex('payees_merchant').on('payees').columns(['merchant_id', 'created_at']).execute();

  await db.schema
    .createTable('payout_requests')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('merchant_id', 'text', (c) => c.notNull().references('merchants.id'))
    .addColumn('payee_id', 'text', (c) => c.notNull().references('payees.id'))
    .addColumn('reference_id', 'text')
    .addColumn('currency', 'text', (c) => c.notNull())
    .addColumn('currency_exponent', 'integer', (c) => c.notNull())
    .addColumn('amount', 'bigint', (c) => c.notNull())
    .addColumn('callback_url', 'text', (c) => c.notNull())
    .addColumn('remark', 'text')
    .addColumn('schedule_at', 'bigint')
    .addColumn('schedule_status', 'text', (c) => c.notNull())
    .addColumn('transfer_status', 'text', (c) => c.notNull())
    .addColumn('status_reason', 'text')
    .addColumn('decided_by', 'text')
    .addColumn('decided_at', 'bigint')
    .addColumn('executed_at', 'bigint')
    .addColumn('bank_reference', 'text')
    .addColumn('bank_started_at', 'bigint')
    .addColumn('app_id', 'text')
    .addColumn('created_by', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('payout_requests_reference')
    .on('payout_requests')
    .columns(['merchant_id', 'reference_id'])
    .unique()
    .execute();
  await db.schema
    .createIndex('payout_requests_merchant')
    .on('payout_requests')
    .columns(['merchant_id', 'created_at'])
    .execute();
  await db.schema.createIndex('payout_requests_payee').on('payout_requests').columns(['payee_id']).execute();
  // Recovery looks for transfers sent to the bank and never answered.
  await db.schema.createIndex('payout_requests_sending').on('payout_requests').columns(['bank_started_at']).execute();

  await db.schema
    .createTable('payout_thresholds')
    .addColumn('merchant_id', 'text', (c) => c.notNull().references('merchants.id'))
    .addColumn('currency', 'text', (c) => c.notNull())
    .addColumn('amount', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('payout_thresholds_pk', ['merchant_id', 'currency'])
    .execute();
}
