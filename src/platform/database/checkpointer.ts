import { once } from 'node:events';
import { Worker } from 'node:worker_threads';
import type { SqliteDatabase } from './sqlite-driver.js';

export interface CheckpointerSettings {
  file: string;
  /** How long pages gather in the log before a checkpoint copies them, once it has caught up. */
  intervalMs: number;
  /** A checkpoint that leaves this many pages behind is followed by another at once. */
  batchPages: number;
  /**
   * A log this long (in pages) is restarted from its beginning, in a pause of the writer, once nearly all of it is
   * copied; at twice this, whatever is left to copy (the writer outpaces the thread), so the log stays bounded.
   */
  restartAbovePages: number;
  /** How long a restart waits for the reads in progress on other connections. */
  restartWaitMs: number;
  /** Past this length the thread gives up (and the writer checkpoints again), as after this many failures in a row. */
  giveUpAbovePages: number;
  failuresBeforeGivingUp: number;
}

/** From the thread. */
export type CheckpointReport =
  | { kind: 'pause-wanted' }
  | { kind: 'restarted'; pages: number; busy: boolean }
  | { kind: 'restart-failed'; message: string }
  | { kind: 'failed'; message: string }
  | { kind: 'gave-up'; message: string };

/** To the thread: the writer is held (restart now), could not be held (go on), or the server stops. */
export type CheckpointRequest = 'paused' | 'resume' | 'stop';

/** What the server is told of: a checkpoint that failed, or the thread lost (the writer checkpoints again). */
export type CheckpointerEvent = { kind: 'failed'; message: string } | { kind: 'lost'; message: string };

/** Runs `during` while no transaction of the writer is open and none may begin (the writer's own lock). */
export type HoldWriter = (during: () => Promise<void>) => Promise<void>;

const DEFAULTS = {
  intervalMs: 200,
  batchPages: 1_000,
  restartAbovePages: 4_096,
  restartWaitMs: 2_000,
  giveUpAbovePages: 65_536,
  failuresBeforeGivingUp: 5,
};
/** A pause the thread does not answer in this long: the thread is taken for lost. */
const PAUSE_LIMIT_MS = 10_000;

/**
 * Checkpoints off the event loop. SQLite's writer otherwise copies the write-ahead log back into the database file
 * inside a commit every 1,000 pages, and flushes both files there: on the batch bench that was 7% of the server's
 * CPU and a tenth of its commits' time, on the thread that serves requests (docs/benchmarks.md). Here the writer
 * never checkpoints. A worker thread with its own connection does, passively, beside the writer's commits.
 *
 * The log only starts again from its beginning at a moment when it is all copied and nobody writes. A writer that
 * never pauses (the batch runner's rounds follow one another without a gap) gives no such moment, so when the log
 * is long and nearly all copied, the thread asks for one: the writer's lock is taken between two transactions, the
 * thread copies the rest and restarts the log, and the lock is given back. The event loop goes on meanwhile; only
 * writes wait, while what is left is copied (and, if a read on another connection is in progress, up to
 * `restartWaitMs` for it; the next pause is then asked for at twice the length).
 *
 * If the thread fails to start, dies, fails five times in a row, does not answer a pause, or sees the log reach
 * 256 MiB, the writer goes back to checkpointing in its commits, as SQLite does by default.
 */
export class Checkpointer {
  private readonly worker: Worker;
  private readonly exited: Promise<unknown>;
  private stopping = false;
  private endPause: (() => void) | undefined;

  constructor(
    private readonly writer: SqliteDatabase,
    file: string,
    private readonly holdWriter: HoldWriter,
    private readonly onEvent: (event: CheckpointerEvent) => void = () => {},
    settings: Partial<Omit<CheckpointerSettings, 'file'>> = {},
  ) {
    const workerData: CheckpointerSettings = { ...DEFAULTS, ...settings, file };
    writer.pragma('wal_autocheckpoint = 0');
    this.worker = new Worker(new URL('./checkpoint-worker.js', import.meta.url), { workerData });
    this.exited = once(this.worker, 'exit').catch(() => undefined);
    // The process's exit is not held up by the thread; stop() ends it properly.
    this.worker.unref();
    let gaveUp: string | undefined;
    this.worker.on('message', (report: CheckpointReport) => {
      if (report.kind === 'pause-wanted') void this.pause();
      if (report.kind === 'restarted' || report.kind === 'restart-failed') this.endPause?.();
      if (report.kind === 'failed') this.onEvent(report);
      if (report.kind === 'gave-up') gaveUp = report.message;
    });
    this.worker.on('error', (error) => this.lose(error.message));
    this.worker.on('exit', (code) => this.lose(gaveUp ?? `the checkpoint thread exited with code ${code}`));
  }

  /** Ends the thread and closes its connection, before the writer closes (the last connection checkpoints). */
  async stop(): Promise<void> {
    if (this.stopping) return;
    this.stopping = true;
    this.worker.postMessage('stop' satisfies CheckpointRequest);
    const timeout = setTimeout(() => void this.worker.terminate(), 5_000);
    await this.exited;
    clearTimeout(timeout);
    // Only now: a restart in progress holds SQLite's write lock until the thread is done with it.
    this.endPause?.();
  }

  private async pause(): Promise<void> {
    let held = false;
    await this.holdWriter(async () => {
      held = true;
      if (this.stopping) return;
      const ended = new Promise<void>((resolve) => (this.endPause = resolve));
      this.worker.postMessage('paused' satisfies CheckpointRequest);
      const timeout = setTimeout(
        () => this.lose(`the checkpoint thread did not end a pause in ${PAUSE_LIMIT_MS} ms`),
        PAUSE_LIMIT_MS,
      );
      await ended;
      clearTimeout(timeout);
      this.endPause = undefined;
    }).catch((error: unknown) => {
      // The writer could not be held (its lock waited too long, or the database is closing): the thread goes on.
      if (!held && !this.stopping) this.worker.postMessage('resume' satisfies CheckpointRequest);
      this.onEvent({ kind: 'failed', message: error instanceof Error ? error.message : String(error) });
    });
  }

  private lose(message: string): void {
    if (this.stopping) return;
    this.stopping = true;
    if (this.writer.open) this.writer.pragma('wal_autocheckpoint = 1000');
    this.onEvent({ kind: 'lost', message });
    // A pause ends once the thread is gone: it may hold SQLite's write lock until then.
    void this.worker.terminate().finally(() => this.endPause?.());
  }
}
