import { fsync, open } from 'node:fs';
import { promisify } from 'node:util';

const fsyncAsync = promisify(fsync);
const openAsync = promisify(open);

/**
 * Group commit for SQLite: commits are made at synchronous=NORMAL (no flush, so the event loop never waits on
 * the disk), and what must be durable waits for `sync()`, a flush of the write-ahead log on libuv's thread
 * pool that began after the call. One flush serves every commit made before it began, however many; at most
 * one flush runs and one more waits, so concurrent callers share them. fsync flushes the file's data whoever
 * asks, so flushing our own descriptor of the WAL makes SQLite's writes to it durable.
 */
export class GroupCommit {
  private running: Promise<void> | undefined;
  private next: Promise<void> | undefined;
  private fd: Promise<number> | undefined;
  /** Something was written since the last flush began. */
  private written = false;

  constructor(private readonly walFile: string, private readonly flush: (fd: number) => Promise<void> = fsyncAsync) {}

  /** The writer tells us of every write, so that a request that wrote nothing never waits for the disk. */
  noteWrite(): void {
    this.written = true;
  }

  /** Resolves once everything committed before this call is on disk. */
  sync(): Promise<void> {
    if (!this.written && !this.running) return Promise.resolve();
    if (!this.running) {
      this.running = this.flushOnce();
      return this.running;
    }
    // A flush is running, but it may have begun before our commit: wait for the one after it.
    this.next ??= this.running.then(
      () => undefined,
      () => undefined,
    ).then(() => {
      this.next = undefined;
      this.running = this.flushOnce();
      return this.running;
    });
    return this.next;
  }

  private async flushOnce(): Promise<void> {
    this.written = false;
    try {
      this.fd ??= openAsync(this.walFile, 'r');
      await this.flush(await this.fd);
    } finally {
      this.running = undefined;
    }
  }
}
