import type { Kysely } from 'kysely';

/**
 * Identity-verified users (operation 2) and the cards issued to them (docs/issuing.md). A user is unique per
 * merchant three ways, each its own index so that concurrent creations from any number of processes end with one
 * winner: its reference, its phone number (calling code and number), and its identity document. A card's number
 * and CVV are kept sealed (encrypted under the configured secret), with a keyed fingerprint of the number so that
 * no number is issued twice; its limits are JSON, every change kept in a history; every read of a full number is
 * audited. What the cards do (authorisations, settlements, refunds, withdrawals) are card transactions; what each
 * limit period has spent is kept per card and period, so that an authorisation checks its limits in three reads.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('issuing_users')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('merchant_id', 'text', (c) => c.notNull().references('merchants.id'))
    .addColumn('reference_id', 'text', (c) => c.notNull())
    .addColumn('calling_code', 'text', (c) => c.notNull())
    .addColumn('phone_number', 'text', (c) => c.notNull())
    .addColumn('document_type', 'text', (c) => c.notNull())
    .addColumn('document_number', 'text', (c) => c.notNull())
    .addColumn('first_name', 'text')
    .addColumn('last_name', 'text')
    .addColumn('date_of_birth', 'text', (c) => c.notNull())
    .addColumn('issuing_country', 'text', (c) => c.notNull())
    .addColumn('verification_status', 'text', (c) => c.notNull())
    .addColumn('rejection_reason', 'text')
    .addColumn('verification_reference', 'text', (c) => c.notNull())
    .addColumn('verification_started_at', 'bigint')
    .addColumn('app_id', 'text')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('issuing_users_reference')
    .on('issuing_users')
    .columns(['merchant_id', 'reference_id'])
    .unique()
    .execute();
  await db.schema
    .createIndex('issuing_users_phone')
    .on('issuing_users')
    .columns(['merchant_id', 'calling_code', 'phone_number'])
    .unique()
    .execute();
  await db.schema
    .createIndex('issuing_users_document')
    .on('issuing_users')
    .columns(['merchant_id', 'document_type', 'document_number', 'issuing_country'])
    .unique()
    .execute();
  // Recovery looks for verifications sent and never answered.
  await db.schema
    .createIndex('issuing_users_verifying')
    .on('issuing_users')
    .columns(['verification_started_at'])
    .execute();

  await db.schema
    .createTable('issued_cards')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('merchant_id', 'text', (c) => c.notNull().references('merchants.id'))
    .addColumn('user_id', 'text', (c) => c.notNull().references('issuing_users.id'))
    .addColumn('reference_id', 'text', (c) => c.notNull())
    .addColumn('title', 'text', (c) => c.notNull())
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('settlement_currency', 'text', (c) => c.notNull())
    .addColumn('number_sealed', 'text', (c) => c.notNull())
    .addColumn('cvv_sealed', 'text', (c) => c.notNull())
    .addColumn('number_fingerprint', 'text', (c) => c.notNull().unique())
    .addColumn('first6', 'text', (c) => c.notNull())
    .addColumn('last4', 'text', (c) => c.notNull())
    .addColumn('exp_month', 'integer', (c) => c.notNull())
    .addColumn('exp_year', 'integer', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('limits', 'text', (c) => c.notNull())
    .addColumn('app_id', 'text')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('issued_cards_reference')
    .on('issued_cards')
    .columns(['merchant_id', 'reference_id'])
    .unique()
    .execute();
  await db.schema.createIndex('issued_cards_list').on('issued_cards').columns(['merchant_id', 'created_at']).execute();

  await db.schema
    .createTable('issued_card_limit_changes')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('merchant_id', 'text', (c) => c.notNull().references('merchants.id'))
    .addColumn('card_id', 'text', (c) => c.notNull().references('issued_cards.id'))
    .addColumn('limits', 'text', (c) => c.notNull())
    .addColumn('changed_by', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('issued_card_limit_changes_card')
    .on('issued_card_limit_changes')
    .columns(['card_id', 'created_at'])
    .execute();

  await db.schema
    .createTable('issued_card_number_reads')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('merchant_id', 'text', (c) => c.notNull().references('merchants.id'))
    .addColumn('card_id', 'text', (c) => c.notNull().references('issued_cards.id'))
    .addColumn('read_by', 'text', (c) => c.notNull())
    .addColumn('request_id', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('issued_card_number_reads_card')
    .on('issued_card_number_reads')
    .columns(['card_id', 'created_at'])
    .execute();

  await db.schema
    .createTable('issued_card_transactions')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('merchant_id', 'text', (c) => c.notNull().references('merchants.id'))
    .addColumn('card_id', 'text', (c) => c.notNull().references('issued_cards.id'))
    .addColumn('user_id', 'text', (c) => c.notNull())
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('decline_reason', 'text')
    .addColumn('transaction_currency', 'text', (c) => c.notNull())
    .addColumn('transaction_amount', 'bigint', (c) => c.notNull())
    .addColumn('local_currency', 'text', (c) => c.notNull())
    .addColumn('local_amount', 'bigint', (c) => c.notNull())
    .addColumn('held_amount', 'bigint', (c) => c.notNull())
    .addColumn('calculated_fee', 'bigint', (c) => c.notNull())
    .addColumn('final_local_amount', 'bigint')
    .addColumn('auth_rate', 'text', (c) => c.notNull())
    .addColumn('settle_rate', 'text')
    .addColumn('network_merchant_id', 'text', (c) => c.notNull())
    .addColumn('merchant_name', 'text', (c) => c.notNull())
    .addColumn('merchant_city', 'text', (c) => c.notNull())
    .addColumn('merchant_country', 'text', (c) => c.notNull())
    .addColumn('merchant_category', 'text', (c) => c.notNull())
    .addColumn('spend_date', 'text', (c) => c.notNull())
    .addColumn('decided_by', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'bigint')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('issued_card_transactions_list')
    .on('issued_card_transactions')
    .columns(['merchant_id', 'created_at'])
    .execute();
  await db.schema
    .createIndex('issued_card_transactions_card')
    .on('issued_card_transactions')
    .columns(['card_id', 'created_at'])
    .execute();
  // The expiry job's question: which of a merchant's open authorisations are due (expires_at is set on open ones only).
  await db.schema
    .createIndex('issued_card_transactions_expiry')
    .on('issued_card_transactions')
    .columns(['merchant_id', 'expires_at'])
    .execute();

  // Each thing that happened to a card transaction after it was made (incremented, reversed, expired, settled): the
  // ledger entry it posted names it. The transaction's first entry is named by the transaction itself.
  await db.schema
    .createTable('issued_card_transaction_steps')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('merchant_id', 'text', (c) => c.notNull().references('merchants.id'))
    .addColumn('card_transaction_id', 'text', (c) => c.notNull().references('issued_card_transactions.id'))
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('transaction_amount', 'bigint', (c) => c.notNull())
    .addColumn('local_amount', 'bigint', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('issued_card_transaction_steps_of')
    .on('issued_card_transaction_steps')
    .columns(['card_transaction_id', 'created_at'])
    .execute();

  await db.schema
    .createTable('issued_card_spend')
    .addColumn('card_id', 'text', (c) => c.notNull().references('issued_cards.id'))
    .addColumn('period_key', 'text', (c) => c.notNull())
    .addColumn('merchant_id', 'text', (c) => c.notNull().references('merchants.id'))
    .addColumn('amount', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('issued_card_spend_key', ['card_id', 'period_key'])
    .execute();

  await db.schema
    .createTable('issuing_authorization_endpoints')
    .addColumn('merchant_id', 'text', (c) => c.primaryKey().references('merchants.id'))
    .addColumn('url', 'text', (c) => c.notNull())
    .addColumn('default_decision', 'text', (c) => c.notNull())
    .addColumn('app_id', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();
}
