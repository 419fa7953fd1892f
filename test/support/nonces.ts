import { join } from 'node:path';
import { NONCE_FILE } from '../../src/http/auth/nonce-store.js';
import type { Database } from '../../src/platform/database/database.js';
import { Sqlite } from '../../src/platform/database/sqlite-driver.js';

/** How many nonces are stored, looked at directly (their own file on SQLite, a table on PostgreSQL). */
export async function countNonces(database: Database): Promise<number> {
  if (database.engine === 'postgres') {
    const row = await database.db
      .selectFrom('nonces')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }
  const file = new Sqlite(join(database.dataDir, NONCE_FILE), { readonly: true });
  try {
    return (file.prepare('SELECT count(*) AS n FROM nonces').get() as { n: number }).n;
  } finally {
    file.close();
  }
}
