import { sql } from 'kysely';
import type { TestServer } from './server.js';

/**
 * The tables of the server's database (its own PostgreSQL schema, or its SQLite file) whose rows contain `needle`
 * anywhere.
 */
export async function tablesContaining(server: TestServer, needle: string): Promise<string[]> {
  const db = server.platform.db;
  const tables =
    server.platform.database.engine === 'sqlite'
      ? (await sql<{ name: string }>`select name from sqlite_master where type = 'table'`.execute(db)).rows.map(
          (row) => row.name,
        )
      : (
          await sql<{
            name: string;
          }>`select table_name as name from information_schema.tables where table_schema = current_schema()`.execute(db)
        ).rows.map((row) => row.name);
  const found: string[] = [];
  for (const table of tables) {
    const rows = (await sql<Record<string, unknown>>`select * from ${sql.table(table)}`.execute(db)).rows;
    if (rows.some((row) => JSON.stringify(row).includes(needle))) found.push(table);
  }
  return found;
}
