import { createHash } from 'node:crypto';
import { CompiledQuery } from 'kysely';
import { worldCatalogue } from '../../src/lab/snapshots/catalogue.js';
import type { Database } from '../../src/platform/database/database.js';

/**
 * A digest of one merchant's sandbox world as the database holds it (every table the snapshots cover, read here with
 * its own SQL, each table's rows in key order), and the number of rows per table. Columns that a restore sets anew
 * by design (the wall time due work is claimed at, and leases) can be left out with `without`.
 */
export async function worldFingerprint(
  database: Database,
  merchantId: string,
  without: readonly string[] = [],
): Promise<{ digest: string; rows: Record<string, number> }> {
  const { world } = await worldCatalogue({ database, db: database.db });
  const hash = createHash('sha256');
  const rows: Record<string, number> = {};
  for (const table of world) {
    if (table.scope.kind !== 'merchant') throw new Error(`${table.name}: child tables are not fingerprinted here`);
    const columns = table.columns.filter((column) => !without.includes(column));
    const placeholder = database.engine === 'postgres' ? '$1' : '?';
    const result = await database.db.executeQuery<Record<string, unknown>>(
      CompiledQuery.raw(
        `select ${columns.map((c) => `"${c}"`).join(', ')} from "${table.name}" where merchant_id = ${placeholder} order by ${table.key.map((c) => `"${c}"`).join(', ')}`,
        [merchantId],
      ),
    );
    rows[table.name] = result.rows.length;
    hash.update(`${table.name}\n`);
    for (const row of result.rows) hash.update(`${JSON.stringify(columns.map((c) => row[c]))}\n`);
  }
  return { digest: hash.digest('hex'), rows };
}

/** What a restore sets anew: when due work is claimed (on the wall clock), and who holds it. */
export const RESTORE_SETS = ['due_wall_at', 'lease_owner', 'lease_token', 'lease_expires_at'] as const;
