import { parentPort, workerData } from 'node:worker_threads';
import BetterSqlite3 from 'better-sqlite3';
import type { CheckpointReport, CheckpointerSettings, CheckpointRequest } from './checkpointer.js';

/**
 * The checkpointer's thread: its own connection copies committed pages from the write-ahead log back into the
 * database file, so that the writer's commits never do (see checkpointer.ts). Passive checkpoints run beside the
 * writer; once the log is long and nearly all copied (or twice as long, however far behind), the thread asks for a
 * pause in the writing, and restarts the log from its beginning while the writer holds back.
 */
const settings = workerData as CheckpointerSettings;
const db = new BetterSqlite3(settings.file, { fileMustExist: true });
// The log is flushed before its pages are copied, and the database file after: a checkpoint loses nothing.
db.pragma('synchronous = NORMAL');
// A restart waits for the reads in progress on other connections to end.
db.pragma(`busy_timeout = ${settings.restartWaitMs}`);

type Result = { busy: number; log: number; checkpointed: number };

let timer: NodeJS.Timeout | undefined;
let stopped = false;
let awaitingPause = false;

function passive(): void {
  timer = undefined;
  if (stopped || awaitingPause) return;
  let behind = 0;
  try {
    const [result] = db.pragma('wal_checkpoint(PASSIVE)') as Result[];
    behind = result!.log - result!.checkpointed;
    // Nearly all copied, the pause is short. Twice as long, the writer is outpacing the thread: pause all the same.
    if (result!.log >= settings.restartAbovePages && (behind < settings.batchPages || result!.log >= 2 * settings.restartAbovePages)) {
      awaitingPause = true;
      report({ kind: 'pause-wanted' });
      return;
    }
  } catch (error) {
    report({ kind: 'failed', message: messageOf(error) });
  }
  // Far behind: again at once. Otherwise the pages gather for a while, so that one flush serves many.
  timer = setTimeout(passive, behind >= settings.batchPages ? 0 : settings.intervalMs);
}

/** The writer holds back: what is left is copied and the log starts again from its beginning. */
function restart(): void {
  try {
    const [result] = db.pragma('wal_checkpoint(RESTART)') as Result[];
    report({ kind: 'restarted', pages: result!.log, busy: result!.busy === 1 });
  } catch (error) {
    report({ kind: 'failed', message: messageOf(error) });
  }
  awaitingPause = false;
  timer = setTimeout(passive, settings.intervalMs);
}

function report(message: CheckpointReport): void {
  parentPort!.postMessage(message);
}

const messageOf = (error: unknown) => (error instanceof Error ? error.message : String(error));

parentPort!.on('message', (message: CheckpointRequest) => {
  if (message === 'paused' && !stopped) restart();
  if (message === 'stop') {
    stopped = true;
    if (timer) clearTimeout(timer);
    db.close();
    parentPort!.close();
  }
});

passive();
