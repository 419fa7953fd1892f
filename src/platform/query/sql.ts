import { type RawBuilder, type SqlBool, sql } from 'kysely';
import type { Condition, FilterCatalogue, FilterValue } from './filters.js';

const COMPARE: Record<string, string> = { _eq: '=', _neq: '<>', _gt: '>', _gte: '>=', _lt: '<', _lte: '<=' };
/** The exponents currencies have (ISO 4217): a money filter is written once per exponent. */
const EXPONENTS = [0, 2, 3, 4];

/** The SQL of one checked condition, to AND onto a query. */
export function conditionSql(condition: Condition, catalogue: FilterCatalogue, postgres: boolean): RawBuilder<SqlBool> {
  const target = catalogue[condition.field];
  if (!target) throw new Error(`no column for filter field ${condition.field}`);
  const column = sql.ref(target.column);
  if (condition.op === '_null')
    return condition.isNull ? sql<SqlBool>`${column} is null` : sql<SqlBool>`${column} is not null`;
  // The negative operators hold for a missing value too: an order without a customer is not that customer's.
  if ('values' in condition) {
    const list = sql.join(condition.values.map((v) => sql`${v}`));
    return condition.op === '_in'
      ? sql<SqlBool>`${column} in (${list})`
      : sql<SqlBool>`(${column} is null or ${column} not in (${list}))`;
  }
  if (condition.op === '_contains' || condition.op === '_not_contains') {
    // Case-sensitive substring, alike on both engines (SQLite's LIKE ignores ASCII case, PostgreSQL's does not).
    const found = postgres
      ? sql`strpos(${column}, ${condition.value}) > 0`
      : sql`instr(${column}, ${condition.value}) > 0`;
    return condition.op === '_contains' ? sql<SqlBool>`${found}` : sql<SqlBool>`(${column} is null or not (${found}))`;
  }
  if (target.exponentColumn)
    return moneySql(column, sql.ref(target.exponentColumn), condition.op, String(condition.value));
  if (condition.op === '_neq')
    return sql<SqlBool>`(${column} is null or ${column} <> ${condition.value as FilterValue})`;
  return sql<SqlBool>`${column} ${sql.raw(COMPARE[condition.op]!)} ${condition.value as FilterValue}`;
}

/**
 * A decimal bound against minor units in several currencies: for each exponent, the bound in that exponent's
 * minor units, rounded the way that keeps the comparison exact (12.345 > x cents means x <= 1234).
 */
function moneySql(
  column: RawBuilder<unknown>,
  exponent: RawBuilder<unknown>,
  op: string,
  decimal: string,
): RawBuilder<SqlBool> {
  const branches = EXPONENTS.map((e) => {
    const { floor, exact } = scaled(decimal, e);
    const ceil = exact ? floor : floor + 1;
    let bound: RawBuilder<unknown>;
    switch (op) {
      case '_eq':
        bound = exact ? sql`${column} = ${floor}` : sql`1 = 0`;
        break;
      case '_neq':
        bound = exact ? sql`${column} <> ${floor}` : sql`1 = 1`;
        break;
      case '_gt':
        bound = sql`${column} > ${floor}`;
        break;
      case '_gte':
        bound = sql`${column} >= ${ceil}`;
        break;
      case '_lt':
        bound = sql`${column} < ${ceil}`;
        break;
      default:
        bound = sql`${column} <= ${floor}`;
        break;
    }
    return sql`(${exponent} = ${e} and ${bound})`;
  });
  return sql<SqlBool>`(${sql.join(branches, sql` or `)})`;
}

/** decimal × 10^exponent, as the floor and whether it was exact; decimal text in, integers out, no floats. */
function scaled(decimal: string, exponent: number): { floor: number; exact: boolean } {
  const negative = decimal.startsWith('-');
  const [whole = '0', fraction = ''] = decimal.replace('-', '').split('.');
  const kept = fraction.slice(0, exponent).padEnd(exponent, '0');
  const exact = /^0*$/.test(fraction.slice(exponent));
  const magnitude = Number(`${whole}${kept}`);
  if (!negative) return { floor: magnitude, exact };
  return { floor: exact ? -magnitude : -magnitude - 1, exact };
}
