import { Piscina } from 'piscina';
import { AppError, PLATFORM_ERRORS } from './errors.js';

export interface OffLoopOptions {
  /** Worker threads at most; each is started on demand and stopped after `idleMs` without work. */
  threads: number;
  /** Tasks that may wait for a thread; one more is refused as busy (503) instead of queueing without end. */
  queue: number;
  idleMs?: number;
}

/**
 * Work too heavy for the event loop (rendering a long document, parsing a large file) runs on worker threads, so
 * no request can hold the process for everyone else. `moduleUrl` names a module whose default export does the
 * work on plain data (it is copied to the thread and back) and imports nothing that holds state.
 */
export class OffLoopTask<Input, Output> {
  private pool: Piscina | undefined;

  constructor(
    private readonly moduleUrl: URL,
    private readonly options: OffLoopOptions,
  ) {}

  async run(input: Input): Promise<Output> {
    // Created on first use: a process that never renders one starts no thread.
    this.pool ??= new Piscina({
      filename: this.moduleUrl.href,
      minThreads: 0,
      maxThreads: this.options.threads,
      maxQueue: this.options.queue,
      idleTimeout: this.options.idleMs ?? 60_000,
    });
    if (this.pool.queueSize >= this.options.queue) {
      throw new AppError(PLATFORM_ERRORS.busy);
    }
    return (await this.pool.run(input)) as Output;
  }

  /** Stops the threads (the process's shutdown, or a test's). */
  async close(): Promise<void> {
    const pool = this.pool;
    this.pool = undefined;
    await pool?.destroy();
  }
}
