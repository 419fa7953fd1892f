import { getHeapStatistics, setFlagsFromString } from 'node:v8';

/** From a heap limit this large V8 lets the heap grow to four times what survives; below, less (about 1.3 to 2). */
const HIGH_GROWTH_HEAP_LIMIT = 2 * 1024 * 1024 * 1024;

/**
 * Bounds how far V8 lets the heap grow past what survived its last full collection. With a heap limit of 2 GiB or
 * more (Node gives one on machines of about 8 GiB and more) V8 lets it reach four times that before collecting
 * again: under the 100,000-row batch the server kept under 100 MiB alive and reached 337 MB resident, 264 MB with
 * twice (100%) for no measurable CPU (docs/benchmarks.md). With a smaller limit V8's own bound is already below
 * twice, so it is left alone. V8 reads the setting at each full collection: it can be set once the process runs.
 * Whether it was applied.
 */
export function limitHeapGrowth(percent: number): boolean {
  if (percent === 0 || !heapGrowsFourfold()) return false;
  setFlagsFromString(`--heap-growing-percent=${percent}`);
  return true;
}

/** Whether V8 would let this process's heap grow to four times what survives (see limitHeapGrowth). */
export function heapGrowsFourfold(): boolean {
  return getHeapStatistics().heap_size_limit >= HIGH_GROWTH_HEAP_LIMIT;
}
