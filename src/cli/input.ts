import { readFileSync } from 'node:fs';
import { CommandFailure, fileReason } from './failures.js';

/**
 * A file a command was told to read (`--public-key FILE`, `@FILE`, `-` for stdin): a missing one is a one-line failure.
 */
export function readFileArgument(what: string, path: string): string {
  try {
    return readFileSync(path === '-' ? 0 : path, 'utf8');
  } catch (error) {
    const reason = fileReason(error);
    if (reason) throw new CommandFailure(`${what}: cannot read ${path}: ${reason}`);
    throw error;
  }
}
