/**
 * Rows grouped by a key, each group in the rows' order. Given `groups`, adds to it: rows read in several slices
 * land in one map.
 */
export function groupBy<T>(
  rows: Iterable<T>,
  key: (row: T) => string,
  groups = new Map<string, T[]>(),
): Map<string, T[]> {
  for (const row of rows) {
    const group = groups.get(key(row));
    if (group) group.push(row);
    else groups.set(key(row), [row]);
  }
  return groups;
}
