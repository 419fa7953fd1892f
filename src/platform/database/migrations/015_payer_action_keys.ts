import type { Kysely } from 'kysely';

/**
 * The Idempotency-Key of the request that answered a payment's payer action (the sandbox's succeed and fail, the
 * hosted pages' 3-D Secure and wallet answers): a retry of that request after a crash or a lost reply is answered
 * with the payment as it stands, as a void's retry is (void_idempotency_key).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('transactions').addColumn('payer_action_idempotency_key', 'text').execute();
}
