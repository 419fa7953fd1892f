import type { Selectable } from 'kysely';
import { appsChanged } from '../events/outbox.js';
import type { Db } from '../platform/database/database.js';
import type { AppsTable, MerchantsTable } from '../platform/database/schema.js';

export type AppRow = Selectable<AppsTable>;

export async function insertMerchant(db: Db, row: Selectable<MerchantsTable>): Promise<void> {
  await db.insertInto('merchants').values(row).execute();
}

export async function insertApp(db: Db, row: AppRow): Promise<void> {
  await db.insertInto('apps').values(row).execute();
  appsChanged(db);
}

export async function findApp(db: Db, id: string): Promise<AppRow | undefined> {
  return db.selectFrom('apps').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function listApps(db: Db, merchantId: string): Promise<AppRow[]> {
  return db
    .selectFrom('apps')
    .selectAll()
    .where('merchant_id', '=', merchantId)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
}

export async function setAppDisabledAt(db: Db, id: string, disabledAt: number | null): Promise<boolean> {
  const result = await db.updateTable('apps').set({ disabled_at: disabledAt }).where('id', '=', id).executeTakeFirst();
  appsChanged(db);
  return result.numUpdatedRows > 0n;
}

export async function countMerchants(db: Db): Promise<number> {
  const row = await db
    .selectFrom('merchants')
    .select((eb) => eb.fn.countAll<number>().as('count'))
    .executeTakeFirst();
  return Number(row?.count ?? 0);
}
