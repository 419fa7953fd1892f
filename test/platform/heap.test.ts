import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { describe, test } from 'node:test';
import { heapGrowsFourfold } from '../../src/platform/heap.js';
import { POSTGRES_URL } from '../support/postgres.js';

const heapModule = new URL('../../src/platform/heap.js', import.meta.url).href;

/**
 * The most heap V8 took in a process with the growth limited to `percent` (0: V8's own choice), under a load like a
 * batch's: a live set of about 60 MiB, and garbage that lives long enough to reach the old generation first.
 */
function peakHeapMiB(percent: number): number {
  const program = `
    const { limitHeapGrowth } = await import(${JSON.stringify(heapModule)});
    limitHeapGrowth(${percent});
    const live = [];
    for (let i = 0; i < 600000; i++) live.push({ a: 'x' + i, b: [i, i + 1] });
    const recent = [];
    let peak = 0;
    for (let round = 0; round < 600; round++) {
      const batch = [];
      for (let i = 0; i < 5000; i++) batch.push({ s: 'y'.repeat(50) + i, o: { i } });
      recent.push(batch);
      if (recent.length > 40) recent.shift();
      peak = Math.max(peak, process.memoryUsage().heapTotal);
    }
    process.stdout.write(String(peak / 1048576));`;
  return Number(execFileSync(process.execPath, ['--input-type=module', '-e', program], { encoding: 'utf8' }));
}

// The setting is the process's, not the database's: one run is enough.
// On a machine small enough that Node gives a heap limit under 2 GiB, V8's own bound is tighter and nothing is set.
const skip = POSTGRES_URL
  ? 'a process setting, tested on the SQLite pass'
  : !heapGrowsFourfold()
    ? 'V8 bounds the growth itself below a 2 GiB heap limit'
    : false;

describe('the heap growth limit', { skip }, () => {
  test('keeps the heap well under what V8 would take on its own for the same load', () => {
    const own = peakHeapMiB(0);
    const limited = peakHeapMiB(25);
    assert.ok(limited < own * 0.75, `limited to 25%: ${limited.toFixed(0)} MiB; V8's own: ${own.toFixed(0)} MiB`);
  });
});
