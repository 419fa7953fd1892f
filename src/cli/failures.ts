import { ConfigError } from '../platform/config.js';
import { DataDirLockedError } from '../platform/database/data-dir-lock.js';
import { AppError } from '../platform/errors.js';

/**
 * A failure the command expected and can explain in one line (a server that does not answer, a file that is
 * not there): said without a stack, exit code 1.
 */
export class CommandFailure extends Error {
  override readonly name = 'CommandFailure';
}

/** What a failed command prints, and where. */
export interface FailureReport {
  stdout?: string;
  stderr: string;
}

/**
 * Expected failures in a line each: the platform's own refusals (with --json, as JSON on stdout, where a script
 * reads), configuration, a locked data folder, what the command itself explained. Only what nobody expected shows
 * its stack, which is what a bug report needs.
 */
export function reportFailure(error: unknown, output: { json: boolean }): FailureReport {
  if (error instanceof AppError) {
    const { code } = error.definition;
    return output.json
      ? { stdout: `${JSON.stringify({ error: { code, message: error.message } })}\n`, stderr: '' }
      : { stderr: `error ${code}: ${error.message}\n` };
  }
  if (error instanceof CommandFailure || error instanceof ConfigError || error instanceof DataDirLockedError) {
    return { stderr: `${error.message}\n` };
  }
  return { stderr: `${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n` };
}
