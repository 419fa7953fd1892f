import type { ArgumentSpec, Command, CommandEntry, CommandGroup, OptionSpec } from './command.js';

/** The `paygate` command itself: what its top-level help says around the list of commands. */
export interface Program {
  readonly name: string;
  readonly summary: string;
  readonly commands: readonly CommandEntry[];
  /** Said last in the top-level help. */
  readonly footer?: string;
}

/** Every command with the words that run it (`['merchant', 'create']`), in the order declared. */
export function leafCommands(
  entries: readonly CommandEntry[],
  prefix: readonly string[] = [],
): Array<{ path: string[]; command: Command }> {
  return entries.flatMap((entry) =>
    entry.kind === 'command'
      ? [{ path: [...prefix, entry.name], command: entry }]
      : leafCommands(entry.commands, [...prefix, entry.name]),
  );
}

export function argumentName(argument: ArgumentSpec): string {
  return argument.display ?? argument.name.replace(/([a-z])([A-Z])/g, '$1_$2').toUpperCase();
}

function optionName(name: string, spec: OptionSpec): string {
  return spec.type === 'boolean' ? `--${name}` : `--${name} ${spec.value ?? name.toUpperCase().replace(/-/g, '_')}`;
}

/** `paygate app create --merchant ID --public-key FILE.pem [--allow-ip CIDR]... [--json]` */
export function usageLine(program: string, path: readonly string[], command: Command): string {
  return usageWords(program, path, command).join(' ');
}

function usageWords(program: string, path: readonly string[], command: Command): string[] {
  const words = [[program, ...path].join(' ')];
  for (const argument of command.arguments)
    words.push(argument.optional ? `[${argumentName(argument)}]` : argumentName(argument));
  for (const [name, spec] of Object.entries(command.options)) {
    const shown = optionName(name, spec);
    words.push(`${spec.required ? shown : `[${shown}]`}${spec.multiple ? '...' : ''}`);
  }
  return words;
}

function optionNotes(spec: OptionSpec): string {
  const notes = [
    spec.required && 'required',
    spec.default !== undefined && `default ${spec.default}`,
    spec.multiple && 'may be repeated',
  ];
  const said = notes.filter((note): note is string => typeof note === 'string');
  return said.length > 0 ? ` (${said.join('; ')})` : '';
}

/** The rows of a command's arguments and options: what to type, and what it does. */
function commandRows(command: Command): { arguments: Array<[string, string]>; options: Array<[string, string]> } {
  return {
    arguments: command.arguments.map((argument) => [argumentName(argument), argument.description]),
    options: [
      ...Object.entries(command.options).map(([name, spec]): [string, string] => [
        `${spec.short ? `-${spec.short}, ` : ''}${optionName(name, spec)}`,
        `${spec.description}${optionNotes(spec)}`,
      ]),
      ['-h, --help', 'show this help'],
    ],
  };
}

const WIDTH = 100;

function table(rows: ReadonlyArray<readonly [string, string]>): string[] {
  const width = Math.max(...rows.map(([left]) => left.length)) + 3;
  return rows.flatMap(([left, right]) =>
    wrap(right, WIDTH - 2 - width).map((line, index) =>
      `  ${(index === 0 ? left : '').padEnd(width)}${line}`.trimEnd(),
    ),
  );
}

function wrap(text: string, width: number): string[] {
  return wrapWords(text.split(/\s+/).filter(Boolean), width);
}

/** Words in lines of at most `width` characters (a longer word has a line of its own). */
function wrapWords(words: readonly string[], width: number): string[] {
  const lines: string[] = [];
  let line = '';
  for (const word of words) {
    if (line && line.length + 1 + word.length > width) {
      lines.push(line);
      line = word;
    } else {
      line = line ? `${line} ${word}` : word;
    }
  }
  return [...lines, line];
}

/** `paygate merchant create --help` */
export function commandHelp(program: string, path: readonly string[], command: Command): string {
  const rows = commandRows(command);
  const [head = '', ...words] = usageWords(program, path, command);
  const indent = ' '.repeat('Usage: '.length + head.length + 1);
  const usage = wrapWords(words, WIDTH - indent.length).map((line, index) =>
    `${index === 0 ? `Usage: ${head} ` : indent}${line}`.trimEnd(),
  );
  const lines = [...usage, '', sentence(command.summary)];
  if (command.description) lines.push('', ...wrap(command.description, WIDTH));
  if (rows.arguments.length > 0) lines.push('', 'Arguments:', ...table(rows.arguments));
  lines.push('', 'Options:', ...table(rows.options));
  return `${lines.join('\n')}\n`;
}

/** `paygate merchant --help`; `path` is the group's words (`['sandbox', 'snapshot']`). */
export function groupHelp(program: string, path: readonly string[], group: CommandGroup): string {
  const words = [program, ...path].join(' ');
  const lines = [
    `Usage: ${words} COMMAND [ARGUMENTS] [OPTIONS]`,
    '',
    sentence(group.summary),
    ...(group.description ? ['', ...wrap(group.description, WIDTH)] : []),
    '',
    'Commands:',
    ...table(leafCommands(group.commands).map(({ path: under, command }) => [under.join(' '), command.summary])),
    '',
    `Run "${words} COMMAND --help" for a command's arguments and options.`,
  ];
  return `${lines.join('\n')}\n`;
}

/** `paygate --help` */
export function programHelp(program: Program): string {
  const lines = [
    `${program.name}: ${program.summary}`,
    '',
    `Usage: ${program.name} COMMAND [ARGUMENTS] [OPTIONS]`,
    '',
    'Commands:',
    ...table(leafCommands(program.commands).map(({ path, command }) => [path.join(' '), command.summary])),
    '',
    `Run "${program.name} COMMAND --help" (or "${program.name} help COMMAND") for a command's arguments and options.`,
    ...(program.footer ? [program.footer] : []),
  ];
  return `${lines.join('\n')}\n`;
}

/** The command reference of docs/operations.md, in Markdown: one section per command, from the same declarations. */
export function commandReference(program: string, entries: readonly CommandEntry[]): string {
  const sections = leafCommands(entries).map(({ path, command }) => {
    const rows = commandRows(command);
    const cell = (text: string) => text.replace(/\|/g, '\\|');
    return [
      `### \`${program} ${path.join(' ')}\``,
      '',
      `${sentence(command.summary)}${command.description ? ` ${command.description.replace(/\s*\n\s*/g, ' ')}` : ''}`,
      '',
      '```',
      usageLine(program, path, command),
      '```',
      '',
      '| argument or option | |',
      '|---|---|',
      ...[...rows.arguments, ...rows.options].map(([left, right]) => `| \`${cell(left)}\` | ${cell(right)} |`),
    ].join('\n');
  });
  return `${sections.join('\n\n')}\n`;
}

/** Summaries are written as list items ("create a merchant"); alone they are sentences. */
function sentence(summary: string): string {
  return `${summary.charAt(0).toUpperCase()}${summary.slice(1)}.`;
}
