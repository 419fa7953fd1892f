#!/usr/bin/env node
import { readFileSync, statSync } from 'node:fs';
import type { CommandDeps, CommandEntry } from './cli/command.js';
import type { Program } from './cli/help.js';
import { type CommandManifest, lazyCommands } from './cli/manifest.js';
import { runCommandLine } from './cli/run.js';

/**
 * The commands as the build's manifest declares them, each loading its own file when run. Without a manifest (a
 * build by `tsc` alone), or with one older than a command's file (compiled again since, by `tsc` alone), every
 * capability's, loaded now: slower, never stale.
 */
async function commands(): Promise<readonly CommandEntry[]> {
  const manifestUrl = new URL('./commands.json', import.meta.url);
  try {
    const manifest = JSON.parse(readFileSync(manifestUrl, 'utf8')) as CommandManifest;
    const writtenAt = statSync(manifestUrl).mtimeMs;
    const sourceOf = (file: string) => new URL(file, manifestUrl);
    if (manifest.entries.every(({ source }) => statSync(sourceOf(source.file)).mtimeMs <= writtenAt)) {
      return lazyCommands(manifest, async ({ file, exportName }) => {
        const entry = ((await import(sourceOf(file).href)) as Record<string, CommandEntry>)[exportName];
        if (entry === undefined) throw new Error('the command manifest is stale: rebuild (npm run build)');
        return entry;
      });
    }
  } catch {
    // No manifest, or a file it names is gone: as without one.
  }
  return (await import('./modules.js')).COMMANDS;
}

const PROGRAM: Program = {
  name: 'paygate',
  summary: 'a self-hostable payments platform',
  commands: await commands(),
  footer:
    'Configuration comes from the environment (docs/configuration.md); the commands are described in docs/operations.md.',
};

// Loaded when used: `paygate call` needs neither the platform nor the HTTP server.
const DEPS: CommandDeps = {
  openPlatform: async (config, options) => (await import('./modules.js')).openComposedPlatform(config, options),
  startServer: async (config) => (await import('./server.js')).startServer(config),
};

process.exitCode = await runCommandLine(process.argv.slice(2), PROGRAM, DEPS);
