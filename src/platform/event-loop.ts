/**
 * One process answers every merchant, so no piece of work may hold the event loop for long (the rule: never more
 * than 100 ms). Work of many steps lets waiting requests, timers and I/O run between its steps; on SQLite every
 * query runs on the event loop, so without this a long run of steps would never let anything else in.
 */
export function yieldToEventLoop(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}
