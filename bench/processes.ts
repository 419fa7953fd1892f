import { type ChildProcess, spawn } from 'node:child_process';

/** Starts a Node process the bench runs (paygate, a baseline server), ready once its output matches `ready`. */
export function startProcess(
  children: ChildProcess[],
  args: string[],
  env: Record<string, string>,
  ready: RegExp,
): Promise<ChildProcess> {
  const child = spawn(process.execPath, args, {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  children.push(child);
  return new Promise((resolve, reject) => {
    let seen = '';
    const onData = (chunk: Buffer) => {
      // Only the start-up output is read; after it, the pipe is drained unread.
      seen += chunk.toString();
      if (ready.test(seen)) {
        child.stdout!.off('data', onData);
        child.stdout!.resume();
        resolve(child);
      }
    };
    child.stdout!.on('data', onData);
    child.once('exit', (code) => reject(new Error(`${args[0]} exited with ${code} before it was ready`)));
  });
}

/**
 * Ends a process the bench started, on SIGTERM (paygate after its requests in flight, writing its CPU profile if
 * asked for), waiting 10 s at most.
 */
export function stop(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
    setTimeout(resolve, 10_000).unref();
  });
}

/** Stops one of the processes before the run ends. */
export function stopProcess(children: ChildProcess[], child: ChildProcess): Promise<void> {
  children.splice(children.indexOf(child), 1);
  return stop(child);
}
