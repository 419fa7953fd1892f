import type { Page } from '../platform/query/filters.js';

/**
 * Every parameter of a list route's query, for the filter parser: the `filter[field][operator]` parameters are
 * checked by the parser against the list's catalogue, not by the route's schema, so its type does not name them.
 */
export function listParameters(query: Page): Record<string, unknown> {
  return query as unknown as Record<string, unknown>;
}

/** A list route's reply: the page's records under the list's own name, the page that was asked for, the total. */
export function pageReply<const K extends string, T>(
  key: K,
  page: Page,
  records: T[],
  total: number,
): Record<K, T[]> & Page & { total: number } {
  return { [key]: records, offset: page.offset, limit: page.limit, total } as Record<K, T[]> & Page & { total: number };
}
