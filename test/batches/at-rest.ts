import { randomInt } from 'node:crypto';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { sql } from 'kysely';
import type { TestServer } from '../support/server.js';

// Card numbers at rest: whether any can be read, in any form, from what a server keeps.

/** A card number no other test uses: Luhn-valid, approved by the sandbox like any number it does not know. */
export function uniqueCardNumber(): string {
  const body = `4${Array.from({ length: 14 }, () => randomInt(10)).join('')}`;
  const sum = [...body].reverse().reduce((total, digit, i) => {
    const d = Number(digit) * (i % 2 === 0 ? 2 : 1);
    return total + (d > 9 ? d - 9 : d);
  }, 0);
  return `${body}${(10 - (sum % 10)) % 10}`;
}

/**
 * Every form a card number can take in bytes at rest: its digits, their hex (either case), and base64 (either
 * alphabet) of the digits at each of the three offsets a byte can have in a base64 stream (the file's own base64).
 */
export function forms(number: string): string[] {
  const digits = Buffer.from(number);
  const found = [number, digits.toString('hex'), digits.toString('hex').toUpperCase()];
  for (let offset = 0; offset < 3; offset += 1) {
    // The whole three-byte groups of the number once it starts `offset` bytes into a group: their text is fixed.
    const whole = digits.subarray((3 - offset) % 3);
    const groups = whole.subarray(0, whole.length - (whole.length % 3));
    found.push(groups.toString('base64'), groups.toString('base64url'));
  }
  return found;
}

export function filesUnder(folder: string): string[] {
  return readdirSync(folder).flatMap((name) => {
    const path = join(folder, name);
    return statSync(path).isDirectory() ? filesUnder(path) : [path];
  });
}

/**
 * Where any of these card numbers can be read, in any form: on SQLite the raw bytes of every file of the data folder
 * (the database, its write-ahead log and shared memory, any other file), whatever SQL would show; on PostgreSQL
 * every row of every table of the server's schema.
 */
export async function cardNumbersAtRest(server: TestServer, numbers: string[]): Promise<string[]> {
  const needles = numbers.flatMap((number) => forms(number).map((form) => ({ number, form })));
  const hits: string[] = [];
  if (server.platform.database.engine === 'sqlite') {
    for (const path of filesUnder(server.dataDir)) {
      const bytes = readFileSync(path).toString('latin1');
      for (const { number, form } of needles) if (bytes.includes(form)) hits.push(`${path}: ${number} as ${form}`);
    }
    return hits;
  }
  const db = server.platform.db;
  const tables = (
    await sql<{
      name: string;
    }>`select table_name as name from information_schema.tables where table_schema = current_schema()`.execute(db)
  ).rows;
  for (const { name } of tables) {
    const rows = (await sql<{ row: string }>`select row_to_json(t)::text as row from ${sql.table(name)} t`.execute(db))
      .rows;
    for (const { row } of rows)
      for (const { number, form } of needles) if (row.includes(form)) hits.push(`${name}: ${number} as ${form}`);
  }
  return hits;
}
