import { preparedRead } from '../../platform/database/database.js';

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
  clock_frozen_at: number | null;
  id_seed: string | null;
  ids_drawn: number;
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
      'merchants.clock_frozen_at',
      'merchants.id_seed',
      'merchants.ids_drawn',
      'merchants.settlement_hour',
    ])
    .where('apps.id', '=', p.appId),
);
