import { parentPort, workerData } from 'node:worker_threads';
import type { CheckpointerSettings, CheckpointReport, CheckpointRequest } from './checkpointer.js';
import { Sqlite } from './sqlite-driver.js';

/**
 * The checkpointer's thread: its own connection copies committed pages from the write-ahead log back into the
 * database file, so that the writer's commits never do (see checkpointer.ts). Passive checkpoints run beside the
 * writer; once the log is long and nearly all copied (or twice as long, however far behind), the thread asks for a
 * pause in the writing, and restarts the log from its beginning while the writer holds back.
 */
const settings = workerData as CheckpointerSettings;
const db = new Sqlite(settings.file, { fileMustExist: true });
// The log is flushed before its pages are copied, and the database file after: a checkpoint loses nothing.
db.pragma('synchronous = NORMAL');
// A restart waits for the reads in progress on other connections to end.
db.pragma(`busy_timeout = ${settings.restartWaitMs}`);

type Result = { busy: number; log: number; checkpointed: number };

let timer: NodeJS.Timeout | undefined;
let stopped = false;
let awaitingPause = false;
/** The log's length that asks for a pause: doubled after a pause that could not restart, back once one could. */
let pauseAbovePages = settings.restartAbovePages;
let failuresInARow = 0;

function passive(): void {
  timer = undefined;
  if (stopped) return;
  let behind = 0;
  try {
    const [result] = db.pragma('wal_checkpoint(PASSIVE)') as Result[];
    failuresInARow = 0;
    behind = result!.log - result!.checkpointed;
    if (result!.log >= settings.giveUpAbovePages) {
      giveUp(`the log reached ${result!.log} pages without a restart`);
      return;
    }
    // Nearly all copied, the pause is short. Twice as long, the writer is outpacing the thread: pause all the same.
    if (
      !awaitingPause &&
      result!.log >= pauseAbovePages &&
      (behind < settings.batchPages || result!.log >= 2 * pauseAbovePages)
    ) {
      awaitingPause = true;
      report({ kind: 'pause-wanted' });
    }
  } catch (error) {
    if (failed(error)) return;
  }
  // Far behind: again at once (also while a pause is awaited, so that the restart has less to copy). Otherwise the
  // pages gather for a while, so that one flush serves many.
  timer = setTimeout(passive, behind >= settings.batchPages ? 0 : settings.intervalMs);
}

/** The writer holds back: what is left is copied and the log starts again from its beginning. */
function restart(): void {
  awaitingPause = false;
  try {
    const [result] = db.pragma('wal_checkpoint(RESTART)') as Result[];
    failuresInARow = 0;
    const restarted = result!.busy === 0;
    // Reads on another connection kept it from restarting: wait for a longer log before holding the writer again.
    pauseAbovePages = restarted ? settings.restartAbovePages : 2 * pauseAbovePages;
    report({ kind: 'restarted', pages: result!.log, busy: !restarted });
  } catch (error) {
    report({ kind: 'restart-failed', message: messageOf(error) });
    failed(error);
  }
}

/** Reports a failed checkpoint; after several in a row the thread gives up. Whether it did. */
function failed(error: unknown): boolean {
  failuresInARow += 1;
  report({ kind: 'failed', message: messageOf(error) });
  if (failuresInARow < settings.failuresBeforeGivingUp) return false;
  giveUp(`${failuresInARow} checkpoints failed in a row`);
  return true;
}

/** Ends the thread: the writer, told by its exit, checkpoints in its commits again. */
function giveUp(reason: string): void {
  stop();
  report({ kind: 'gave-up', message: reason });
  process.exit(1);
}

function stop(): void {
  stopped = true;
  if (timer) clearTimeout(timer);
  if (db.open) db.close();
}

function report(message: CheckpointReport): void {
  parentPort!.postMessage(message);
}

const messageOf = (error: unknown) => (error instanceof Error ? error.message : String(error));

parentPort!.on('message', (message: CheckpointRequest) => {
  if (stopped) return;
  if (message === 'paused') restart();
  if (message === 'resume') {
    // The writer could not be held: try again at a longer log.
    awaitingPause = false;
    pauseAbovePages *= 2;
  }
  if (message === 'stop') {
    stop();
    parentPort!.close();
  }
});

passive();
