import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { CommandFailure, networkFailure, reportFailure } from '../../src/cli/failures.js';
import { ConfigError } from '../../src/platform/config.js';
import { AppError } from '../../src/platform/errors.js';
import { runInProcess } from '../support/cli.js';
import { errorNamed } from '../support/errors.js';
import { type CliResult, freePort, inParallel, runCli } from '../support/processes.js';

// How `paygate` fails. A usage error (unknown option, missing value, argument or command) is one line and the help
// command to run, exit 2. An expected failure (a server or database that does not answer, a file that is not
// there, a body that is not JSON, the platform's own refusals) is one line on stderr, exit 1. Only what nobody
// expected prints a stack.

const hint = (at: string) => `Run "paygate ${at} --help" for its usage.\n`;

describe('usage errors', () => {
  test('an unknown option, a missing value, a missing or extra argument: one line, the help to run, exit 2', async () => {
    const cases: Array<[string[], string, string]> = [
      [['serve', '--bogus'], 'serve', 'unknown option --bogus'],
      [['call', 'GET', '/x', '-x'], 'call', 'unknown option -x'],
      [['merchant', 'create', '--name'], 'merchant create', '--name needs a value'],
      [['merchant', 'create', '--name', '--json'], 'merchant create', '--name needs a value'],
      [['merchant', 'create'], 'merchant create', '--name is required'],
      [['merchant', 'list', '--json=yes'], 'merchant list', '--json takes no value'],
      [['app', 'disable'], 'app disable', 'missing APP_ID'],
      [['app', 'disable', 'a', 'b'], 'app disable', 'unexpected argument "b"'],
      [['call', 'GET'], 'call', 'missing PATH'],
      [['app', 'webhook', 'a'], 'app webhook', 'give either URL or --clear'],
      [['webhooks', 'list', '--limit', '0'], 'webhooks list', '--limit must be a whole number from 1 to 1000'],
      [['app'], 'app', 'which command? create, list, disable, enable, webhook'],
      [['app', 'frob'], 'app', 'unknown command "frob" (create, list, disable, enable, webhook)'],
    ];
    for (const [args, at, message] of cases) {
      const result = await runInProcess(args);
      assert.deepEqual(
        result,
        { code: 2, stdout: '', stderr: `paygate ${at}: ${message}\n${hint(at)}` },
        args.join(' '),
      );
    }
    assert.deepEqual(await runInProcess(['frobnicate']), {
      code: 2,
      stdout: '',
      stderr: 'paygate: unknown command "frobnicate"\nRun "paygate --help" for the commands.\n',
    });
  });

  test('in a process: an unknown option of paygate serve or paygate call, exit 2 and no stack', async () => {
    for (const [args, at] of [
      [['serve', '--bogus'], 'serve'],
      [['call', '--bogus', 'GET', '/'], 'call'],
    ] as const) {
      const result = await runCli([...args], {});
      assert.equal(result.code, 2, result.stderr);
      assert.equal(result.stderr, `paygate ${at}: unknown option --bogus\n${hint(at)}`);
    }
  });
});

const PRIVATE_KEY = join(process.cwd(), 'test', 'fixtures', 'signing', 'test-private-key.pem');
const PUBLIC_KEY = join(process.cwd(), 'test', 'fixtures', 'signing', 'test-public-key.pem');
const ECHO = '/svc/payment/api/v1/openapi/echo';

function assertOneLine(result: CliResult, line: string | RegExp, what: string) {
  assert.equal(result.code, 1, `${what}: ${result.stdout}${result.stderr}`);
  assert.equal(result.stdout, '', what);
  assert.doesNotMatch(result.stderr, /^\s+at /m, `${what}: no stack`);
  assert.equal(result.stderr.split('\n').length, 2, `${what}: one line: ${result.stderr}`);
  if (typeof line === 'string') assert.equal(result.stderr, `${line}\n`, what);
  else assert.match(result.stderr, line, what);
}

describe('expected failures', () => {
  let dataDir: string;
  let env: Record<string, string>;
  let silent: ReturnType<typeof createServer>;
  let silentPort: number;
  const held: Socket[] = [];

  before(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'paygate-failures-'));
    env = { PAYGATE_DATA_DIR: dataDir, PORT: String(await freePort()), DATABASE_URL: '' };
    // Accepts connections and never answers: a server that hangs.
    silent = createServer((socket) => void held.push(socket));
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    silentPort = (silent.address() as { port: number }).port;
  });
  after(async () => {
    for (const socket of held) socket.destroy();
    await new Promise<void>((resolve) => silent.close(() => resolve()));
    rmSync(dataDir, { recursive: true, force: true });
  });

  test('paygate call to a server that is not running, a host that does not exist, or one that does not answer: one line, exit 1', async () => {
    const signed = ['--app', 'any-app', '--key', PRIVATE_KEY];
    const [refused, unknownHost, hanging] = await inParallel(
      [
        ['call', 'POST', ECHO, '{"message":"hi"}', ...signed],
        ['call', 'GET', ECHO, ...signed, '--base-url', 'http://paygate.invalid'],
        ['call', 'GET', ECHO, ...signed, '--base-url', `http://127.0.0.1:${silentPort}`, '--timeout', '1'],
      ],
      3,
      (args) => runCli(args, env),
    );
    assertOneLine(
      refused!,
      `cannot reach paygate at http://127.0.0.1:${env.PORT}: connection refused (is "paygate serve" running?)`,
      'refused',
    );
    assertOneLine(
      unknownHost!,
      /^cannot reach paygate at http:\/\/paygate\.invalid: (host not found|host name lookup failed)\n$/,
      'unknown host',
    );
    assertOneLine(
      hanging!,
      `no answer from paygate at http://127.0.0.1:${silentPort} within 1 s (--timeout)`,
      'no answer',
    );
  });

  test('a file that is not there, a key that is not a key, a body that is not JSON: one line, exit 1, nothing sent', async () => {
    const missing = join(dataDir, 'missing.pem');
    const cases: Array<[string[], string]> = [
      [['call', 'GET', ECHO, '--app', 'a', '--key', missing], `--key: cannot read ${missing}: no such file or folder`],
      [['call', 'GET', ECHO, '--app', 'a', '--key', PUBLIC_KEY], `--key: ${PUBLIC_KEY} is not a PEM private key`],
      [
        ['call', 'POST', ECHO, `@${missing}`, '--app', 'a', '--key', PRIVATE_KEY],
        `the body: cannot read ${missing}: no such file or folder`,
      ],
      [
        ['app', 'create', '--merchant', 'm', '--public-key', missing],
        `--public-key: cannot read ${missing}: no such file or folder`,
      ],
    ];
    const results = await inParallel(cases, 4, ([args]) => runCli(args, env));
    for (const [index, [args, line]] of cases.entries()) assertOneLine(results[index]!, line, args.join(' '));
    // Nothing listens at PORT: had the body been sent, the failure would be a refused connection.
    const notJson = await runCli(['call', 'POST', ECHO, '{"message":', '--app', 'a', '--key', PRIVATE_KEY], env);
    assertOneLine(notJson, /^the body \(the argument\) is not JSON: /, 'not JSON');
  });

  test('paygate serve on a port another server holds: one line naming the address, exit 1', async () => {
    const result = await runCli(['serve'], {
      ...env,
      PORT: String(silentPort),
      PAYGATE_DATA_DIR: join(dataDir, 'serve'),
      PAYGATE_DEMO: '0',
      LOG_LEVEL: 'silent',
    });
    assertOneLine(
      result,
      `cannot listen on 127.0.0.1:${silentPort}: the address is already in use (another server on this PORT?)`,
      'port taken',
    );
  });

  test('a database that does not answer: one line naming where it was looked for, exit 1', async () => {
    const port = await freePort();
    const result = await runCli(['merchant', 'list'], {
      ...env,
      DATABASE_URL: `postgres://postgres@127.0.0.1:${port}/paygate`,
    });
    assertOneLine(result, `cannot connect to 127.0.0.1:${port}: connection refused`, 'database');
  });
});

describe('how a failure is reported', () => {
  test("the platform's refusals in a line, as JSON on stdout with --json; configuration and the command's own failures as said", () => {
    const refusal = new AppError(errorNamed('merchantNotFound'), 'merchant m not found');
    assert.deepEqual(reportFailure(refusal, { json: false }), {
      stderr: `error ${refusal.definition.code}: merchant m not found\n`,
    });
    assert.deepEqual(reportFailure(refusal, { json: true }), {
      stdout: `${JSON.stringify({ error: { code: refusal.definition.code, message: 'merchant m not found' } })}\n`,
      stderr: '',
    });
    assert.deepEqual(reportFailure(new CommandFailure('cannot reach paygate'), { json: true }), {
      stderr: 'cannot reach paygate\n',
    });
    assert.deepEqual(reportFailure(new ConfigError(['PORT: bad']), { json: false }), {
      stderr: 'Invalid configuration:\n  - PORT: bad\n',
    });
    // PostgreSQL that accepts the connection and never answers (the pool gives up after 10 s), or stays busy.
    assert.deepEqual(reportFailure(new Error('Connection terminated due to connection timeout'), { json: false }), {
      stderr: 'the database did not answer in time: Connection terminated due to connection timeout\n',
    });
    assert.deepEqual(
      reportFailure(Object.assign(new Error('database is locked'), { code: 'SQLITE_BUSY' }), { json: false }),
      { stderr: 'the database did not answer in time: database is locked\n' },
    );
    assert.deepEqual(
      reportFailure(Object.assign(new Error('database "x" does not exist'), { code: '3D000', severity: 'FATAL' }), {
        json: false,
      }),
      { stderr: 'PostgreSQL: database "x" does not exist\n' },
    );
  });

  test('a refused connection is found however deeply it is wrapped (fetch, then an AggregateError for IPv4 and IPv6)', () => {
    const refused = Object.assign(new Error('connect ECONNREFUSED ::1:5432'), {
      code: 'ECONNREFUSED',
      address: '::1',
      port: 5432,
    });
    const wrapped = new Error('fetch failed', {
      cause: Object.assign(new AggregateError([refused]), { code: 'ECONNREFUSED' }),
    });
    assert.deepEqual(networkFailure(wrapped), { reason: 'connection refused', timedOut: false, address: '::1:5432' });
    assert.deepEqual(networkFailure(new Error('x', { cause: new DOMException('aborted', 'TimeoutError') })), {
      reason: 'no answer in time',
      timedOut: true,
    });
    assert.equal(networkFailure(new Error('plain')), undefined);
  });

  test('anything unexpected keeps its stack, for the bug report', () => {
    const report = reportFailure(new TypeError('cannot read properties of undefined'), { json: false });
    assert.match(report.stderr, /^TypeError: cannot read properties of undefined\n\s+at /);
  });
});
