import { setFlagsFromString } from 'node:v8';

/**
 * Bounds how far V8 lets the heap grow past what survived its last full collection. On a large machine V8 lets it
 * reach four times that before collecting again: under the 100,000-row batch the server kept about 70 MiB alive
 * and reached 337 MB resident. Twice (100%) kept the same run near 230 MB for no measurable CPU (docs/benchmarks.md).
 * V8 reads the setting at each full collection, so it can be set once the process runs; 0 leaves V8's own choice.
 */
export function limitHeapGrowth(percent: number): void {
  if (percent > 0) setFlagsFromString(`--heap-growing-percent=${percent}`);
}
