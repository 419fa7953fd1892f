import type { Logger } from 'pino';
import type { PlatformContext } from '../context/context.js';
import type { OpenedPlatform } from '../context/open-platform.js';
import type { Config } from '../platform/config.js';

/**
 * A `paygate` command, declared once: its name, what it does, its options (parsed by node:util's parseArgs)
 * and arguments, each with a description. The runner (`run.ts`) parses, checks and answers `--help` from the
 * declaration, and the operations guide's command reference is generated from it.
 */
export interface Command {
  readonly kind: 'command';
  readonly name: string;
  /** One line: shown in the list of commands. */
  readonly summary: string;
  /** More, for its `--help` and the reference (plain text, may span lines). */
  readonly description?: string;
  readonly options: Readonly<Record<string, OptionSpec>>;
  readonly arguments: readonly ArgumentSpec[];
  // biome-ignore lint/suspicious/noConfusingVoidType: a command that ends well may return nothing (an async function's Promise<void>)
  run(input: ParsedInput, deps: CommandDeps): Promise<number | void>;
}

/**
 * Commands under one name (`paygate merchant create`, `paygate merchant list`); a group may hold groups of its own
 * (`paygate sandbox snapshot save`).
 */
export interface CommandGroup {
  readonly kind: 'group';
  readonly name: string;
  readonly summary: string;
  readonly description?: string;
  readonly commands: readonly CommandEntry[];
}

export type CommandEntry = Command | CommandGroup;

export interface OptionSpec {
  readonly type: 'string' | 'boolean';
  readonly description: string;
  /** The value's name in usage (`--public-key FILE.pem`); the option's name in capitals by default. */
  readonly value?: string;
  readonly short?: string;
  /** May be given several times: the command gets every value, in order. */
  readonly multiple?: boolean;
  readonly required?: boolean;
  readonly default?: string;
}

export interface ArgumentSpec {
  /** Its key in `args`; shown in capitals (`appId` is APP_ID) unless `display` says otherwise. */
  readonly name: string;
  readonly description: string;
  readonly optional?: boolean;
  readonly display?: string;
}

/** What an option gives the command: a boolean is false when absent; a string option with no default may be absent. */
export type OptionValues<O> = {
  -readonly [K in keyof O]: O[K] extends { type: 'boolean' }
    ? boolean
    : O[K] extends { multiple: true }
      ? string[]
      : O[K] extends { required: true } | { default: string }
        ? string
        : string | undefined;
};

export type ArgumentValues<A extends readonly ArgumentSpec[]> = {
  -readonly [X in A[number] as X['name']]: X extends { optional: true } ? string | undefined : string;
};

export interface CommandInput<O, A extends readonly ArgumentSpec[]> {
  options: OptionValues<O>;
  args: ArgumentValues<A>;
}

export interface ParsedInput {
  options: Record<string, string | boolean | string[] | undefined>;
  args: Record<string, string | undefined>;
}

export interface CommandDefinition<O extends Readonly<Record<string, OptionSpec>>, A extends readonly ArgumentSpec[]> {
  name: string;
  summary: string;
  description?: string;
  options?: O;
  arguments?: A;
  /** Returns the exit code when it is not 0. */
  // biome-ignore lint/suspicious/noConfusingVoidType: a command that ends well may return nothing (an async function's Promise<void>)
  run(input: CommandInput<O, A>, deps: CommandDeps): Promise<number | void>;
}

export function defineCommand<
  // biome-ignore lint/complexity/noBannedTypes: {} is a command without options, the type its options are inferred from
  const O extends Readonly<Record<string, OptionSpec>> = {},
  const A extends readonly ArgumentSpec[] = [],
>(definition: CommandDefinition<O, A>): Command {
  return {
    kind: 'command',
    name: definition.name,
    summary: definition.summary,
    description: definition.description,
    options: definition.options ?? {},
    arguments: definition.arguments ?? [],
    // The runner checks the input against this same declaration before the command sees it.
    run: (input, deps) => definition.run(input as unknown as CommandInput<O, A>, deps),
  };
}

export function defineCommandGroup(group: Omit<CommandGroup, 'kind'>): CommandGroup {
  return { kind: 'group', ...group };
}

/** The `--json` every command takes. */
export const JSON_OPTION = { type: 'boolean', description: 'print one JSON document, for scripts' } as const;

/** What the entry point gives every command, composed with every capability (so commands need not know them). */
export interface CommandDeps {
  /** Opens the configured database, migrated, as the server would (it may be running). */
  openPlatform(config: Config, options: { logger: Logger }): Promise<OpenedPlatform>;
  startServer(config: Config): Promise<StartedServer>;
}

/** What `paygate serve` shows of the server it started. */
export interface StartedServer {
  url: string;
  platform: PlatformContext;
  demo:
    | { demo: DemoFacts; created: boolean; signIn?: { email: string; password: string; file: string } | undefined }
    | undefined;
  close(): Promise<void>;
}

export interface DemoFacts {
  app_id: string;
  merchant_id: string;
  private_key_path: string;
  public_key_path: string;
  webhook_public_key_path: string;
}
