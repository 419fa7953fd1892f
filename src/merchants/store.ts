import type { Selectable } from 'kysely';
import type { Merchant } from '../platform/context.js';
import { preparedRead, type Db } from '../platform/database/database.js';
import type { AppsTable, MerchantsTable } from '../platform/database/schema.js';

export type AppRow = Selectable<AppsTable>;

export function toMerchant(row: Pick<Selectable<MerchantsTable>, 'id' | 'name' | 'timezone' | 'clock_offset_ms' | 'settlement_hour'>): Merchant {
  return { id: row.id, name: row.name, timezone: row.timezone, clockOffsetMs: row.clock_offset_ms, settlementHour: row.settlement_hour };
}

export async function insertMerchant(db: Db, row: Selectable<MerchantsTable>): Promise<void> {
  await db.insertInto('merchants').values(row).execute();
}

export async function findMerchant(db: Db, id: string): Promise<Merchant | undefined> {
  const row = await db.selectFrom('merchants').selectAll().where('id', '=', id).executeTakeFirst();
  return row && toMerchant(row);
}

export async function listMerchants(db: Db): Promise<Array<Selectable<MerchantsTable>>> {
  return db.selectFrom('merchants').selectAll().orderBy('created_at').orderBy('id').execute();
}

export async function insertApp(db: Db, row: AppRow): Promise<void> {
  await db.insertInto('apps').values(row).execute();
}

export async function findApp(db: Db, id: string): Promise<AppRow | undefined> {
  return db.selectFrom('apps').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function listApps(db: Db, merchantId: string): Promise<AppRow[]> {
  return db.selectFrom('apps').selectAll().where('merchant_id', '=', merchantId).orderBy('created_at').orderBy('id').execute();
}

export async function setAppDisabledAt(db: Db, id: string, disabledAt: number | null): Promise<boolean> {
  const result = await db.updateTable('apps').set({ disabled_at: disabledAt }).where('id', '=', id).executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

/** What authentication needs of an app and its merchant, in one read per request. */
export interface AppCredentials {
  app_id: string;
  public_key_pem: string;
  allowed_ips: string;
  disabled_at: number | null;
  merchant_id: string;
  merchant_name: string;
  timezone: string;
  clock_offset_ms: number;
  settlement_hour: number;
}

export const readAppCredentials = preparedRead<{ appId: string }, AppCredentials>((db, p) =>
  db
    .selectFrom('apps')
    .innerJoin('merchants', 'merchants.id', 'apps.merchant_id')
    .select([
      'apps.id as app_id',
      'apps.public_key_pem',
      'apps.allowed_ips',
      'apps.disabled_at',
      'merchants.id as merchant_id',
      'merchants.name as merchant_name',
      'merchants.timezone',
      'merchants.clock_offset_ms',
      'merchants.settlement_hour',
    ])
    .where('apps.id', '=', p.appId),
);
