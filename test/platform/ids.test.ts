import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { isUuid, newSortableId } from '../../src/platform/ids.js';

describe('sortable ids', () => {
  test('ids made one after another sort in the order they were made, within a millisecond and across a clock step back', () => {
    const at = Date.UTC(2026, 10, 22, 9, 30);
    const ids = [
      ...Array.from({ length: 5000 }, () => newSortableId(at)),
      ...Array.from({ length: 10 }, () => newSortableId(at - 60_000)),
      ...Array.from({ length: 10 }, (_, i) => newSortableId(at + 1 + i)),
    ];
    assert.deepEqual([...ids].sort(), ids);
    assert.equal(new Set(ids).size, ids.length);
    for (const id of ids.slice(0, 3)) {
      assert.ok(isUuid(id));
      assert.equal(id[14], '7', 'version 7');
      assert.match(id[19]!, /[89ab]/, 'RFC 4122 variant');
    }
    assert.equal(parseInt(ids[0]!.replace(/-/g, '').slice(0, 12), 16), at, 'the time is readable from the id');
  });
});
