import type { Command, CommandEntry, CommandGroup } from './command.js';

/**
 * The command manifest: every `paygate` command's declaration (names, summaries, options, arguments) without its
 * code, and the file and export that hold the code. Written at build time (`scripts/write-command-manifest.js`,
 * as oclif writes `oclif.manifest.json`) so that `paygate --help` and a usage mistake need no capability loaded, and
 * running a command loads only the file that declares it and what that file imports.
 */
export interface CommandManifest {
  readonly entries: readonly ManifestEntry[];
}

/** Where an entry's code is: a file under the compiled `src/` (relative, with `/`) and the name it is exported as. */
export interface CommandSource {
  readonly file: string;
  readonly exportName: string;
}

type Declared<T> = Omit<T, 'run'>;
export type ManifestEntry =
  | (Declared<Command> & { readonly source: CommandSource })
  | (Omit<CommandGroup, 'commands'> & {
      readonly commands: readonly Declared<Command>[];
      readonly source: CommandSource;
    });

/** The manifest of `entries`, each located by `sourceOf`. */
export function commandManifest(
  entries: readonly CommandEntry[],
  sourceOf: (entry: CommandEntry) => CommandSource,
): CommandManifest {
  const declared = ({ run: _run, ...declaration }: Command): Declared<Command> => declaration;
  return {
    entries: entries.map((entry) =>
      entry.kind === 'command'
        ? { ...declared(entry), source: sourceOf(entry) }
        : { ...entry, commands: entry.commands.map(declared), source: sourceOf(entry) },
    ),
  };
}

/**
 * The manifest's entries as commands to run: each declared as the manifest says, and its `run` loads the entry's
 * file (once) and runs the command found there.
 */
export function lazyCommands(
  manifest: CommandManifest,
  load: (source: CommandSource) => Promise<CommandEntry>,
): CommandEntry[] {
  return manifest.entries.map((entry) => {
    let loaded: Promise<CommandEntry> | undefined;
    const real = () => (loaded ??= load(entry.source));
    if (entry.kind === 'command') {
      const { source: _source, ...declaration } = entry;
      return { ...declaration, run: async (input, deps) => ((await real()) as Command).run(input, deps) };
    }
    const { source: _source, ...group } = entry;
    return {
      ...group,
      commands: group.commands.map((command) => ({
        ...command,
        run: async (input, deps) => {
          const found = ((await real()) as CommandGroup).commands.find((candidate) => candidate.name === command.name);
          if (!found) throw new Error(`the command manifest is stale: rebuild (npm run build)`);
          return found.run(input, deps);
        },
      })),
    } satisfies CommandGroup;
  });
}
