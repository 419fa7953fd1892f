import type { Selectable, Updateable } from 'kysely';
import { type Db, preparedRead } from '../platform/database/database.js';
import { forUpdate } from '../platform/database/locking.js';
import type { CustomersTable } from './tables.js';

export type CustomerRow = Selectable<CustomersTable>;

/** Columns a create-or-update or an edit may set; a key left out keeps its stored value. */
export type CustomerPatch = Pick<
  Updateable<CustomersTable>,
  'name' | 'phone' | 'email' | 'dial_code' | 'company_name' | 'default_payment_method' | 'default_payment_token_id'
>;

export const readCustomerById = preparedRead((db, p: { merchantId: string; id: string }) =>
  db.selectFrom('customers').selectAll().where('merchant_id', '=', p.merchantId).where('id', '=', p.id),
);

export async function findCustomerByReference(
  db: Db,
  merchantId: string,
  referenceNumber: string,
  lock = false,
): Promise<CustomerRow | undefined> {
  const query = db
    .selectFrom('customers')
    .selectAll()
    .where('merchant_id', '=', merchantId)
    .where('reference_number', '=', referenceNumber);
  return (lock ? forUpdate(db, query) : query).executeTakeFirst();
}

export async function lockCustomer(db: Db, merchantId: string, id: string): Promise<CustomerRow | undefined> {
  return forUpdate(
    db,
    db.selectFrom('customers').selectAll().where('merchant_id', '=', merchantId).where('id', '=', id),
  ).executeTakeFirst();
}

/**
 * One atomic statement: inserts the customer, or updates the one with the same reference number. Concurrent
 * calls, from any number of processes, can never make two customers.
 */
export async function upsertCustomerByReference(
  db: Db,
  row: Pick<CustomerRow, 'id' | 'merchant_id' | 'reference_number' | 'name' | 'phone' | 'created_at'>,
  patch: CustomerPatch,
): Promise<CustomerRow> {
  return db
    .insertInto('customers')
    .values({
      email: null,
      dial_code: null,
      company_name: null,
      default_payment_method: null,
      default_payment_token_id: null,
      ...patch,
      ...row,
      updated_at: row.created_at,
    })
    .onConflict((oc) =>
      oc.columns(['merchant_id', 'reference_number']).doUpdateSet({ ...patch, updated_at: row.created_at }),
    )
    .returningAll()
    .executeTakeFirstOrThrow();
}

export async function updateCustomerRow(
  db: Db,
  merchantId: string,
  id: string,
  patch: CustomerPatch,
  now: number,
): Promise<CustomerRow> {
  return db
    .updateTable('customers')
    .set({ ...patch, updated_at: now })
    .where('merchant_id', '=', merchantId)
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirstOrThrow();
}

export async function findCustomerById(db: Db, merchantId: string, id: string): Promise<CustomerRow | undefined> {
  return db
    .selectFrom('customers')
    .selectAll()
    .where('merchant_id', '=', merchantId)
    .where('id', '=', id)
    .executeTakeFirst();
}
