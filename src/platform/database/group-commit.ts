import { close, fsync, open } from 'node:fs';
import { promisify } from 'node:util';

const fsyncAsync = promisify(fsync);
const openAsync = promisify(open);
const closeAsync = promisify(close);

interface Waiter {
  /** The write this caller needs on disk. */
  seq: number;
  resolve(): void;
  reject(error: Error): void;
}

/**
 * Group commit for SQLite: commits are made at synchronous=NORMAL (no flush, so the event loop never waits on
 * the disk), and what must be durable waits for `sync()`, a flush of the write-ahead log on libuv's thread
 * pool. Writes are numbered: a flush covers every write noted before it began, so one flush serves every
 * caller waiting for those, however many; at most one flush runs at a time. fsync flushes the file's data
 * whoever asks, so flushing our own descriptor of the WAL makes SQLite's writes to it durable. SQLite only
 * rewrites the WAL from its start after a checkpoint, which itself syncs the database file first: a flush of
 * the WAL never misses a commit made before it began.
 *
 * A failed flush is not retried: after fsync reports an error, the kernel may have dropped the dirty pages, and
 * a later successful fsync would prove nothing about them. Every sync from then on rejects, and `failure` says
 * why, so the process can report itself unready and be restarted (SQLite recovers from the WAL on open).
 */
export class GroupCommit {
  private written = 0;
  private flushed = 0;
  private waiters: Waiter[] = [];
  private flushing = false;
  private fd: Promise<number> | undefined;
  private failed: Error | undefined;

  constructor(
    private readonly walFile: string,
    private readonly onFailure: (error: Error) => void = () => {},
    private readonly flush: (fd: number) => Promise<void> = fsyncAsync,
  ) {}

  /** The writer tells us of every write, so that a request that wrote nothing never waits for the disk. */
  noteWrite(): void {
    this.written += 1;
  }

  /** Why durability can no longer be promised, once a flush has failed. */
  get failure(): Error | undefined {
    return this.failed;
  }

  /** Resolves once every write noted before this call is on disk. */
  sync(): Promise<void> {
    if (this.failed) return Promise.reject(this.failed);
    const seq = this.written;
    if (seq <= this.flushed) return Promise.resolve();
    return new Promise<void>((resolve, reject) => {
      this.waiters.push({ seq, resolve, reject });
      if (!this.flushing) void this.flushLoop();
    });
  }

  /** Closes the WAL descriptor, after the flush in progress (if any). */
  async close(): Promise<void> {
    while (this.flushing) await new Promise((resolve) => setImmediate(resolve));
    const fd = this.fd;
    this.fd = undefined;
    if (fd) await closeAsync(await fd).catch(() => undefined);
  }

  private async flushLoop(): Promise<void> {
    this.flushing = true;
    try {
      while (this.waiters.length > 0 && !this.failed) {
        const covers = this.written;
        try {
          this.fd ??= openAsync(this.walFile, 'r');
          await this.flush(await this.fd);
        } catch (error) {
          this.failed = error instanceof Error ? error : new Error(String(error));
          this.onFailure(this.failed);
          break;
        }
        this.flushed = Math.max(this.flushed, covers);
        const waiting = this.waiters;
        this.waiters = [];
        for (const waiter of waiting) {
          if (waiter.seq <= this.flushed) waiter.resolve();
          else this.waiters.push(waiter);
        }
      }
    } finally {
      this.flushing = false;
      if (this.failed) {
        const waiting = this.waiters;
        this.waiters = [];
        for (const waiter of waiting) waiter.reject(this.failed);
      }
    }
  }
}
