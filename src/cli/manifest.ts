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
/** A command or a group (of commands and groups) as declared, without code. */
export type DeclaredEntry =
  | Declared<Command>
  | (Omit<CommandGroup, 'commands'> & { readonly commands: readonly DeclaredEntry[] });
export type ManifestEntry = DeclaredEntry & { readonly source: CommandSource };

/** The manifest of `entries`, each located by `sourceOf`. */
export function commandManifest(
  entries: readonly CommandEntry[],
  sourceOf: (entry: CommandEntry) => CommandSource,
): CommandManifest {
  return { entries: entries.map((entry) => ({ ...declared(entry), source: sourceOf(entry) })) };
}

/**
 * The manifest's entries as commands to run: each declared as the manifest says, and its `run` loads the entry's
 * file (once) and runs the command found there.
 */
function declared(entry: CommandEntry): DeclaredEntry {
  if (entry.kind === 'group') return { ...entry, commands: entry.commands.map(declared) };
  const { run: _run, ...declaration } = entry;
  return declaration;
}

export function lazyCommands(
  manifest: CommandManifest,
  load: (source: CommandSource) => Promise<CommandEntry>,
): CommandEntry[] {
  return manifest.entries.map((entry) => {
    let loaded: Promise<CommandEntry> | undefined;
    const real = () => (loaded ??= load(entry.source));
    const { source: _source, ...declaration } = entry;
    return runnable(declaration, async (path) => {
      let found: CommandEntry | undefined = await real();
      for (const name of path)
        found = found?.kind === 'group' ? found.commands.find((c) => c.name === name) : undefined;
      if (found?.kind !== 'command') throw new Error('the command manifest is stale: rebuild (npm run build)');
      return found;
    });
  });
}

/** A declared entry whose commands run the real command found at their path below the loaded entry. */
function runnable(
  entry: DeclaredEntry,
  find: (path: readonly string[]) => Promise<Command>,
  path: string[] = [],
): CommandEntry {
  if (entry.kind === 'command') {
    return { ...entry, run: async (input, deps) => (await find(path)).run(input, deps) };
  }
  return {
    ...entry,
    commands: entry.commands.map((child) => runnable(child, find, [...path, child.name])),
  } satisfies CommandGroup;
}
