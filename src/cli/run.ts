import { parseArgs } from 'node:util';
import type { Command, CommandDeps, CommandGroup, ParsedInput } from './command.js';
import { reportFailure } from './failures.js';
import { argumentName, commandHelp, groupHelp, type Program, programHelp } from './help.js';
import { UsageError } from './output.js';

export interface CliStreams {
  stdout: { write(text: string): unknown };
  stderr: { write(text: string): unknown };
}

/**
 * Runs `paygate ARGS...` and returns the exit code: 0, 1 for a failure, 2 for a usage error. `--help`, `-h` and
 * `help` answer at every level (the program, a group, a command) on stdout; a usage error is one line and the
 * help command to run; a failure is reported as `failures.ts` says.
 */
export async function runCommandLine(
  argv: readonly string[],
  program: Program,
  deps: CommandDeps,
  streams: CliStreams = process,
): Promise<number> {
  let where: string[] = [];
  let json = argv.includes('--json');
  try {
    const [first, ...rest] = argv;
    if (first === undefined || HELP_WORDS.has(first)) {
      streams.stdout.write(first === 'help' && rest.length > 0 ? helpFor(program, rest) : programHelp(program));
      return 0;
    }
    let entry = program.commands.find((candidate) => candidate.name === first);
    if (!entry) throw new UsageError(`unknown command ${JSON.stringify(first)}`);
    where = [entry.name];
    let args = rest;
    // Down the groups, a word at a time, to the command.
    while (entry.kind === 'group') {
      const group: CommandGroup = entry;
      const [name, ...more] = args;
      const names = group.commands.map((candidate) => candidate.name).join(', ');
      if (name === undefined) throw new UsageError(`which command? ${names}`);
      if (HELP_WORDS.has(name)) {
        streams.stdout.write(
          name === 'help' && more.length > 0
            ? helpFor(program, [...where, ...more])
            : groupHelp(program.name, where, group),
        );
        return 0;
      }
      const found = group.commands.find((candidate) => candidate.name === name);
      if (!found) throw new UsageError(`unknown command ${JSON.stringify(name)} (${names})`);
      where = [...where, found.name];
      entry = found;
      args = more;
    }
    const command: Command = entry;
    if (wantsHelp(args)) {
      streams.stdout.write(commandHelp(program.name, where, command));
      return 0;
    }
    const input = parseInput(command, args);
    json = input.options.json === true;
    return (await command.run(input, deps)) ?? 0;
  } catch (error) {
    if (error instanceof UsageError) {
      const at = [program.name, ...where].join(' ');
      streams.stderr.write(
        `${at}: ${error.message}\nRun "${at} --help" for ${where.length > 0 ? 'its usage' : 'the commands'}.\n`,
      );
      return 2;
    }
    const report = reportFailure(error, { json });
    if (report.stdout) streams.stdout.write(report.stdout);
    if (report.stderr) streams.stderr.write(report.stderr);
    return 1;
  }
}

const HELP_WORDS = new Set(['--help', '-h', 'help']);

/** `--help` or `-h` anywhere before `--` (it wins over any other mistake), or `help` alone. */
function wantsHelp(args: readonly string[]): boolean {
  const end = args.indexOf('--');
  const options = end === -1 ? args : args.slice(0, end);
  return options.includes('--help') || options.includes('-h') || (args.length === 1 && args[0] === 'help');
}

/** `paygate help merchant create`: the help of whatever the words name. */
function helpFor(program: Program, words: readonly string[]): string {
  let entries = program.commands;
  const path: string[] = [];
  for (const word of words) {
    const entry = entries.find((candidate) => candidate.name === word);
    if (!entry) throw new UsageError(`unknown command ${JSON.stringify([...path, word].join(' '))}`);
    path.push(entry.name);
    if (entry.kind === 'command') return commandHelp(program.name, path, entry);
    if (path.length === words.length) return groupHelp(program.name, path, entry);
    entries = entry.commands;
  }
  return programHelp(program);
}

/**
 * Parses with node:util's parseArgs, then checks against the declaration with messages of our own (the same on
 * every Node version): unknown options, a missing or stray value, missing or extra arguments, required options.
 */
export function parseInput(command: Command, args: string[]): ParsedInput {
  const config = Object.fromEntries(
    Object.entries(command.options).map(([name, spec]) => [
      name,
      { type: spec.type, ...(spec.short ? { short: spec.short } : {}), ...(spec.multiple ? { multiple: true } : {}) },
    ]),
  );
  const { values, positionals, tokens } = parseArgs({
    args,
    options: config,
    strict: false,
    allowPositionals: true,
    tokens: true,
  });
  for (const token of tokens) {
    if (token.kind !== 'option') continue;
    const spec = Object.hasOwn(command.options, token.name) ? command.options[token.name] : undefined;
    if (!spec) throw new UsageError(`unknown option ${token.rawName}`);
    if (spec.type === 'boolean' && token.value !== undefined) throw new UsageError(`${token.rawName} takes no value`);
    // parseArgs takes the next word as the value whatever it is: `--name --json` forgot the name.
    if (
      spec.type === 'string' &&
      (token.value === undefined || (!token.inlineValue && /^--?[A-Za-z]/.test(token.value)))
    ) {
      throw new UsageError(`${token.rawName} needs a value`);
    }
  }
  const required = command.arguments.filter((argument) => !argument.optional);
  if (positionals.length < required.length) {
    const missing = command.arguments.slice(positionals.length).filter((argument) => !argument.optional);
    throw new UsageError(`missing ${missing.map(argumentName).join(' and ')}`);
  }
  if (positionals.length > command.arguments.length) {
    throw new UsageError(`unexpected argument ${JSON.stringify(positionals[command.arguments.length])}`);
  }
  const options: ParsedInput['options'] = {};
  for (const [name, spec] of Object.entries(command.options)) {
    const value = values[name];
    if (spec.type === 'boolean') options[name] = value === true;
    else if (spec.multiple) options[name] = Array.isArray(value) ? value.map(String) : [];
    else options[name] = typeof value === 'string' ? value : spec.default;
    const given = options[name];
    if (spec.required && (given === undefined || (Array.isArray(given) && given.length === 0)))
      throw new UsageError(`--${name} is required`);
  }
  const named: ParsedInput['args'] = {};
  for (const [index, argument] of command.arguments.entries()) named[argument.name] = positionals[index];
  return { options, args: named };
}
