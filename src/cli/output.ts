/** Every command prints either for people or, with --json, one JSON document for scripts. */
export interface Output {
  json: boolean;
}

export function print(output: Output, value: unknown, human: () => string): void {
  process.stdout.write(output.json ? `${JSON.stringify(value)}\n` : `${human()}\n`);
}

export class UsageError extends Error {
  override readonly name = 'UsageError';
}
