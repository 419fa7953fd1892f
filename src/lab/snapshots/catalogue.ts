import { sql } from 'kysely';
import type { Database, Db } from '../../platform/database/database.js';

/**
 * What a merchant's sandbox world is, read from the database's own catalogue (sqlite_master and its pragmas on
 * SQLite, information_schema on PostgreSQL) rather than from a list kept here: every table with a `merchant_id`
 * column, its rows of the merchant's, but for the tables kept below; and every table without one whose rows hang off
 * such a table by a foreign key (child rows, found through their parent). A capability that adds a table is covered
 * the day its migration runs; test/lab/snapshot-tables.test.ts lists the tables covered, so that a new one is a
 * decision someone took.
 */

/** Tables with a `merchant_id` that are not the merchant's world, and why: a reset and a restore leave them be. */
export const KEPT_TABLES: Readonly<Record<string, string>> = {
  apps: "the merchant's apps: their keys and webhook endpoints",
  dashboard_people: "the people who sign in to the merchant's dashboard (and, through them, their sessions)",
  dashboard_audit: "what the merchant's people did: a record of the past, which no reset or restore rewrites",
  lab_snapshots: 'the snapshots themselves',
  lab_snapshot_parts: "the snapshots' contents",
  lab_taps:
    'the endpoints whose deliveries the inbox also captures: configuration, as endpoints are (a reset keeps them, a restore leaves them as they are)',
};

export interface WorldTable {
  name: string;
  /** Every column, in the table's order. */
  columns: string[];
  /** Columns holding bytes (BLOB, bytea): stored as base64 in a snapshot. */
  binary: ReadonlySet<string>;
  /** Its primary key's columns, in order: the order its rows are read in. */
  key: string[];
  /** How the merchant's rows are found: its own `merchant_id`, or a parent's through a foreign key. */
  scope: { kind: 'merchant' } | { kind: 'parent'; column: string; parent: string; parentColumn: string };
  /** Foreign keys of the table to itself (a refund's original transaction): rows go in after those they name. */
  selfReferences: Array<{ column: string; references: string }>;
}

export interface Catalogue {
  /** The world's tables, each after every table it references (insert in this order, delete in the reverse). */
  world: WorldTable[];
  /** Tables with a merchant_id kept as they are (KEPT_TABLES), and child tables of those. */
  kept: string[];
  /** Tables that belong to no merchant: the platform's own (merchants, nonces, settings, migrations). */
  platform: string[];
}

interface Column {
  table: string;
  name: string;
  type: string;
}

interface ForeignKey {
  table: string;
  column: string;
  references: string;
  referencedColumn: string;
  /** Several columns make the key (only the first is kept: enough to order tables). */
  composite: boolean;
}

const catalogues = new WeakMap<Database, Promise<Catalogue>>();

/**
 * The world's tables of this database, read once per process: the schema changes only by migrations, which run before
 * a process serves.
 */
export function worldCatalogue(ctx: { database: Database; db: Db }): Promise<Catalogue> {
  let catalogue = catalogues.get(ctx.database);
  if (!catalogue) {
    // Read outside any transaction of the caller's: a PostgreSQL catalogue read is slow, and worth keeping.
    catalogue = readCatalogue(ctx.database.db, ctx.database.engine).catch((error: unknown) => {
      catalogues.delete(ctx.database);
      throw error;
    });
    catalogues.set(ctx.database, catalogue);
  }
  return catalogue;
}

async function readCatalogue(db: Db, engine: Database['engine']): Promise<Catalogue> {
  const read = engine === 'postgres' ? readPostgres : readSqlite;
  const { tables, columns, keys, foreignKeys } = await read(db);
  return classify(tables, columns, keys, foreignKeys);
}

/** Sorts the tables into the world, the kept and the platform's, and orders the world by its foreign keys. */
export function classify(
  tables: string[],
  columns: Column[],
  keys: Map<string, string[]>,
  foreignKeys: ForeignKey[],
): Catalogue {
  const columnsOf = new Map<string, Column[]>(tables.map((table) => [table, []]));
  for (const column of columns) columnsOf.get(column.table)?.push(column);
  const owned = new Set(tables.filter((table) => columnsOf.get(table)!.some((c) => c.name === 'merchant_id')));
  const world = new Map<string, WorldTable>();
  const kept = new Set<string>();
  const describe = (table: string, scope: WorldTable['scope']): WorldTable => {
    const cols = columnsOf.get(table)!;
    const key = keys.get(table) ?? [];
    if (key.length === 0) throw new Error(`table ${table} has no primary key: a snapshot reads its rows in key order`);
    const selfReferences = foreignKeys
      .filter((fk) => fk.table === table && fk.references === table)
      .map((fk) => {
        if (fk.composite) throw new Error(`table ${table} references itself by several columns: not supported`);
        return { column: fk.column, references: fk.referencedColumn };
      });
    return {
      name: table,
      columns: cols.map((c) => c.name),
      binary: new Set(cols.filter((c) => /blob|bytea/i.test(c.type)).map((c) => c.name)),
      key,
      scope,
      selfReferences,
    };
  };
  for (const table of owned) {
    if (Object.hasOwn(KEPT_TABLES, table)) kept.add(table);
    else world.set(table, describe(table, { kind: 'merchant' }));
  }
  // Child rows: a table without merchant_id whose rows name a row of the world's (or of a kept table's), found
  // through that row; a grandchild through its parent, and so on.
  for (let added = true; added; ) {
    added = false;
    for (const table of tables) {
      if (owned.has(table) || world.has(table) || kept.has(table)) continue;
      const link = foreignKeys.find(
        (fk) =>
          fk.table === table &&
          !fk.composite &&
          fk.references !== table &&
          (world.has(fk.references) || kept.has(fk.references)),
      );
      if (!link) continue;
      if (kept.has(link.references)) kept.add(table);
      else
        world.set(
          table,
          describe(table, {
            kind: 'parent',
            column: link.column,
            parent: link.references,
            parentColumn: link.referencedColumn,
          }),
        );
      added = true;
    }
  }
  // Deleting the world must not leave a kept or platform row naming a row that went.
  for (const fk of foreignKeys) {
    if (world.has(fk.references) && !world.has(fk.table))
      throw new Error(
        `table ${fk.table}, which a snapshot does not cover, references ${fk.references}, which it does: a reset would break it`,
      );
  }
  return {
    world: inDependencyOrder([...world.values()], foreignKeys),
    kept: [...kept].sort(),
    platform: tables.filter((table) => !world.has(table) && !kept.has(table)).sort(),
  };
}

/** Every table after those it references (Kahn's algorithm; ties by name, so the order is the same everywhere). */
function inDependencyOrder(tables: WorldTable[], foreignKeys: ForeignKey[]): WorldTable[] {
  const byName = new Map(tables.map((table) => [table.name, table]));
  const parents = new Map<string, Set<string>>(tables.map((table) => [table.name, new Set()]));
  for (const fk of foreignKeys) {
    if (fk.table !== fk.references && byName.has(fk.table) && byName.has(fk.references))
      parents.get(fk.table)!.add(fk.references);
  }
  const ordered: WorldTable[] = [];
  const placed = new Set<string>();
  while (ordered.length < tables.length) {
    const ready = [...parents]
      .filter(([name, of]) => !placed.has(name) && [...of].every((parent) => placed.has(parent)))
      .map(([name]) => name)
      .sort();
    if (ready.length === 0) {
      const left = [...parents.keys()].filter((name) => !placed.has(name));
      throw new Error(`the foreign keys of ${left.join(', ')} form a cycle: no order to insert them in`);
    }
    for (const name of ready) {
      placed.add(name);
      ordered.push(byName.get(name)!);
    }
  }
  return ordered;
}

interface RawCatalogue {
  tables: string[];
  columns: Column[];
  keys: Map<string, string[]>;
  foreignKeys: ForeignKey[];
}

async function readSqlite(db: Db): Promise<RawCatalogue> {
  const tables = (
    await sql<{
      name: string;
    }>`select name from sqlite_master where type = 'table' and name not like 'sqlite\\_%' escape '\\' order by name`.execute(
      db,
    )
  ).rows.map((row) => row.name);
  const columns: Column[] = [];
  const keys = new Map<string, string[]>();
  const foreignKeys: ForeignKey[] = [];
  for (const table of tables) {
    const info = (
      await sql<{
        cid: number;
        name: string;
        type: string;
        pk: number;
      }>`select cid, name, type, pk from pragma_table_info(${table}) order by cid`.execute(db)
    ).rows;
    for (const column of info) columns.push({ table, name: column.name, type: column.type });
    keys.set(
      table,
      info
        .filter((column) => column.pk > 0)
        .sort((a, b) => a.pk - b.pk)
        .map((column) => column.name),
    );
    const links = (
      await sql<{
        id: number;
        seq: number;
        table: string;
        from: string;
        to: string | null;
      }>`select id, seq, "table", "from", "to" from pragma_foreign_key_list(${table})`.execute(db)
    ).rows;
    const sizes = new Map<number, number>();
    for (const link of links) sizes.set(link.id, (sizes.get(link.id) ?? 0) + 1);
    for (const link of links.filter((l) => l.seq === 0)) {
      foreignKeys.push({
        table,
        column: link.from,
        references: link.table,
        // Without a column named, the key names the referenced table's primary key.
        referencedColumn: link.to ?? '',
        composite: sizes.get(link.id)! > 1,
      });
    }
  }
  for (const fk of foreignKeys)
    if (fk.referencedColumn === '') fk.referencedColumn = keys.get(fk.references)?.[0] ?? '';
  return { tables, columns, keys, foreignKeys };
}

async function readPostgres(db: Db): Promise<RawCatalogue> {
  const tables = (
    await sql<{ name: string }>`select table_name as name from information_schema.tables
      where table_schema = current_schema() and table_type = 'BASE TABLE' order by table_name`.execute(db)
  ).rows.map((row) => row.name);
  const columns = (
    await sql<Column>`select table_name as "table", column_name as name, data_type as type
      from information_schema.columns where table_schema = current_schema()
      order by table_name, ordinal_position`.execute(db)
  ).rows;
  const keyColumns = (
    await sql<{ table: string; name: string }>`select kcu.table_name as "table", kcu.column_name as name
      from information_schema.table_constraints tc
      join information_schema.key_column_usage kcu
        on kcu.constraint_schema = tc.constraint_schema and kcu.constraint_name = tc.constraint_name
        and kcu.table_name = tc.table_name
      where tc.constraint_type = 'PRIMARY KEY' and tc.table_schema = current_schema()
      order by kcu.table_name, kcu.ordinal_position`.execute(db)
  ).rows;
  const keys = new Map<string, string[]>();
  for (const column of keyColumns) keys.set(column.table, [...(keys.get(column.table) ?? []), column.name]);
  const links = (
    await sql<{
      name: string;
      table: string;
      column: string;
      references: string;
      referenced_column: string;
      position: number;
    }>`select rc.constraint_name as name, kcu.table_name as "table", kcu.column_name as "column",
        ref.table_name as "references", ref.column_name as referenced_column, kcu.ordinal_position as position
      from information_schema.referential_constraints rc
      join information_schema.key_column_usage kcu
        on kcu.constraint_schema = rc.constraint_schema and kcu.constraint_name = rc.constraint_name
      join information_schema.key_column_usage ref
        on ref.constraint_schema = rc.unique_constraint_schema and ref.constraint_name = rc.unique_constraint_name
        and ref.ordinal_position = kcu.position_in_unique_constraint
      where rc.constraint_schema = current_schema()
      order by kcu.table_name, rc.constraint_name, kcu.ordinal_position`.execute(db)
  ).rows;
  const sizes = new Map<string, number>();
  for (const link of links) sizes.set(`${link.table}.${link.name}`, (sizes.get(`${link.table}.${link.name}`) ?? 0) + 1);
  const foreignKeys = links
    .filter((link) => link.position === 1)
    .map((link) => ({
      table: link.table,
      column: link.column,
      references: link.references,
      referencedColumn: link.referenced_column,
      composite: sizes.get(`${link.table}.${link.name}`)! > 1,
    }));
  return { tables, columns, keys, foreignKeys };
}
