import type { Context } from '../../context/context.js';
import type { ClockSetting } from '../../platform/clock.js';
import type { Db } from '../../platform/database/database.js';
import { yieldToEventLoop } from '../../platform/event-loop.js';
import { DELIVERY_QUEUE, freeMerchantLeases, JOB_QUEUE, realignDue } from '../../scheduler/lease.js';
import { type Catalogue, type WorldTable, worldCatalogue } from './catalogue.js';
import { deleteRows, insertRows, readRows, type StoredRow } from './world-store.js';

/**
 * A merchant's world (every row of the tables catalogue.ts finds) taken out as parts and put back: a part is some of
 * one table's rows, as JSON `{"columns": [...], "rows": [[...], ...]}`, each row its values in the columns' order.
 * Numbers stay numbers (64-bit columns read as numbers on both engines, database.ts), bytes go as base64.
 */

/** Rows read at a time, and at most in one part. */
const PAGE_ROWS = 1_000;
/** A part is closed once its JSON passes this size (a page of large rows, such as batch files, splits). */
const PART_BYTES = 1024 * 1024;

export interface WorldPart {
  table: string;
  data: string;
  rows: number;
}

export interface World {
  catalogue: Catalogue;
  tables: ReadonlyMap<string, WorldTable>;
}

export async function worldOf(ctx: Context): Promise<World> {
  const catalogue = await worldCatalogue(ctx);
  return { catalogue, tables: new Map(catalogue.world.map((table) => [table.name, table])) };
}

/** The merchant's world as parts, parents before children, each table's rows in key order. */
export async function* worldParts(db: Db, world: World, merchantId: string): AsyncGenerator<WorldPart> {
  for (const table of world.catalogue.world) {
    const header = `{"columns":${JSON.stringify(table.columns)},"rows":[`;
    let rows: string[] = [];
    let bytes = header.length;
    const close = (): WorldPart => {
      const part = { table: table.name, data: `${header}${rows.join(',')}]}`, rows: rows.length };
      rows = [];
      bytes = header.length;
      return part;
    };
    for await (const page of tablePages(db, world, table, merchantId)) {
      for (const row of page) {
        const text = JSON.stringify(encode(table, row));
        rows.push(text);
        bytes += text.length + 1;
        if (rows.length >= PAGE_ROWS || bytes >= PART_BYTES) yield close();
      }
      await yieldToEventLoop();
    }
    if (rows.length > 0) yield close();
  }
}

/**
 * A table's rows of the merchant's, a page at a time in key order; a row naming another row of the same table (a
 * refund its sale) comes after the row it names, held back until then, so that they go back in an order the
 * foreign key accepts.
 */
async function* tablePages(db: Db, world: World, table: WorldTable, merchantId: string): AsyncGenerator<StoredRow[]> {
  const keyAt = table.key.map((column) => table.columns.indexOf(column));
  const references = table.selfReferences.map((reference) => ({
    at: table.columns.indexOf(reference.column),
    target: table.columns.indexOf(reference.references),
  }));
  const given = new Map<number, Set<unknown>>(references.map((reference) => [reference.target, new Set()]));
  const ready = (row: StoredRow) =>
    references.every((reference) => row[reference.at] === null || given.get(reference.target)!.has(row[reference.at]));
  const give = (row: StoredRow, into: StoredRow[]) => {
    into.push(row);
    for (const [target, values] of given) values.add(row[target]);
  };
  let held: StoredRow[] = [];
  let after: unknown[] | undefined;
  for (;;) {
    const page = await readRows(db, table, world.tables, merchantId, PAGE_ROWS, after);
    if (page.length === 0) break;
    after = keyAt.map((at) => page.at(-1)![at]);
    if (references.length === 0) {
      yield page;
    } else {
      const out: StoredRow[] = [];
      for (const row of page) {
        if (ready(row)) give(row, out);
        else held.push(row);
      }
      for (let released = true; released && held.length > 0; ) {
        released = false;
        const still: StoredRow[] = [];
        for (const row of held) {
          if (ready(row)) {
            give(row, out);
            released = true;
          } else still.push(row);
        }
        held = still;
      }
      yield out;
    }
    if (page.length < PAGE_ROWS) break;
  }
  // Rows naming a row that is not the merchant's (which the database would not have let happen): last, as they are.
  if (held.length > 0) yield held;
}

function encode(table: WorldTable, row: StoredRow): StoredRow {
  if (table.binary.size === 0) return row;
  return row.map((value, i) =>
    table.binary.has(table.columns[i]!) && value instanceof Uint8Array ? Buffer.from(value).toString('base64') : value,
  );
}

/** Deletes the merchant's world, children before parents; returns how many rows went. */
export async function deleteWorld(db: Db, world: World, merchantId: string): Promise<number> {
  let deleted = 0;
  for (const table of [...world.catalogue.world].reverse())
    deleted += await deleteRows(db, table, world.tables, merchantId);
  return deleted;
}

/**
 * Puts parts back, table by table in the world's order (parents first), each table's parts in the order they were
 * written. Columns the table no longer has are left out, and tables the world no longer has are skipped: a snapshot
 * made before a migration still restores, its new columns taking their defaults. Returns how many rows went in.
 */
export async function insertWorld(
  db: Db,
  world: World,
  parts: ReadonlyArray<{ seq: number; table_name: string }>,
  readPart: (seq: number) => Promise<string>,
): Promise<number> {
  let inserted = 0;
  for (const table of world.catalogue.world) {
    for (const part of parts.filter((candidate) => candidate.table_name === table.name)) {
      const { columns, rows } = JSON.parse(await readPart(part.seq)) as { columns: string[]; rows: StoredRow[] };
      const kept = columns.flatMap((column, i) => (table.columns.includes(column) ? [i] : []));
      const asStored = kept.length === columns.length && !columns.some((column) => table.binary.has(column));
      const values = asStored
        ? rows
        : rows.map((row) =>
            kept.map((i) => {
              const value = row[i];
              return table.binary.has(columns[i]!) && typeof value === 'string' ? Buffer.from(value, 'base64') : value;
            }),
          );
      await insertRows(
        db,
        table.name,
        kept.map((i) => columns[i]!),
        values,
      );
      inserted += rows.length;
      await yieldToEventLoop();
    }
  }
  return inserted;
}

/**
 * After the merchant's clock offset changed and its due work was put back: every job and delivery unclaimed (a claim
 * of before belongs to no one now, and its process finds itself fenced off), and due at the wall time at which the
 * clock, as it now stands, reaches its business due time.
 */
export async function resumeDueWork(db: Db, merchantId: string, clock: ClockSetting): Promise<void> {
  for (const queue of [JOB_QUEUE, DELIVERY_QUEUE]) {
    await freeMerchantLeases(db, queue, merchantId);
    await realignDue(db, queue, merchantId, clock);
  }
}
