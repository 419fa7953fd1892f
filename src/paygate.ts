#!/usr/bin/env node
import type { CommandDeps } from './cli/command.js';
import type { Program } from './cli/help.js';
import { runCommandLine } from './cli/run.js';
import { COMMANDS, openComposedPlatform } from './modules.js';

const PROGRAM: Program = {
  name: 'paygate',
  summary: 'a self-hostable payments platform',
  commands: COMMANDS,
  footer:
    'Configuration comes from the environment (docs/configuration.md); the commands are described in docs/operations.md.',
};

const DEPS: CommandDeps = {
  openPlatform: (config, options) => openComposedPlatform(config, options),
  // Loaded when used: `paygate merchant create` need not load the HTTP server.
  startServer: async (config) => (await import('./server.js')).startServer(config),
};

process.exitCode = await runCommandLine(process.argv.slice(2), PROGRAM, DEPS);
