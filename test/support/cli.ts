import type { CommandDeps } from '../../src/cli/command.js';
import { runCommandLine } from '../../src/cli/run.js';
import { COMMANDS } from '../../src/modules.js';
import type { CliResult } from './processes.js';

/** Nothing to open: a command that reaches for the database or the server in a test of parsing fails loudly. */
const NO_DEPS: CommandDeps = {
  openPlatform: () => Promise.reject(new Error('this command should not have opened the database')),
  startServer: () => Promise.reject(new Error('this command should not have started a server')),
};

/** `paygate ARGS...` run in this process (parsing, help and usage errors: no process start per case). */
export async function runInProcess(args: string[], deps: CommandDeps = NO_DEPS): Promise<CliResult> {
  let stdout = '';
  let stderr = '';
  const program = { name: 'paygate', summary: 'a self-hostable payments platform', commands: COMMANDS };
  const code = await runCommandLine(args, program, deps, {
    stdout: { write: (text: string) => (stdout += text) },
    stderr: { write: (text: string) => (stderr += text) },
  });
  return { code, stdout, stderr };
}
