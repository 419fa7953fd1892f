import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { createPoster, failureWords } from '../../src/events/post.js';
import { judgeAttempt } from '../../src/events/retry-schedule.js';
import { isForbiddenHost } from '../../src/platform/urls.js';
import { TestReceiver } from '../support/receiver.js';

// The webhook poster on its own: what each mode refuses to call, and what counts as an answer.

describe('posting webhooks', () => {
  test('live mode refuses loopback, private, link-local and metadata hosts, in every spelling', () => {
    for (const host of [
      '127.0.0.1',
      'localhost',
      'localhost.',
      'LOCALHOST',
      'api.localhost',
      'api.localhost..',
      '10.1.2.3',
      '172.16.0.1',
      '192.168.1.1',
      '169.254.169.254',
      '100.64.0.1',
      '100.100.100.200',
      '[::1]',
      '[fe80::1]',
      '[fd00::1]',
      '[fd00:ec2::254]',
      '[::ffff:127.0.0.1]',
      '[::ffff:7f00:1]',
      '[::ffff:0:7f00:1]',
      '[::ffff:0:127.0.0.1]',
      '[::ffff:0:a9fe:a9fe]',
      '[64:ff9b::a00:1]',
      '[2002:7f00:1::]',
      '0.0.0.0',
      '[::]',
      '198.18.0.1',
      '224.0.0.1',
    ]) {
      assert.equal(isForbiddenHost(host, 'live'), true, host);
    }
    for (const host of [
      '203.0.113.7',
      'shop.example.com',
      'shop.example.com.',
      '[2001:db8::1]',
      '8.8.8.8',
      '[::ffff:203.0.113.7]',
      '[::ffff:cb00:7107]',
      '[::ffff:0:cb00:7107]',
    ]) {
      assert.equal(isForbiddenHost(host, 'live'), false, host);
    }
  });

  test('sandbox mode may call loopback and private hosts (merchants test against their own receivers), never link-local or metadata ones', () => {
    for (const host of ['127.0.0.1', 'localhost', '10.1.2.3', '192.168.1.1', '[::1]', '[fd00::1]', '[::ffff:7f00:1]']) {
      assert.equal(isForbiddenHost(host, 'sandbox'), false, host);
    }
    for (const host of [
      '169.254.169.254',
      '169.254.0.1',
      '100.100.100.200',
      '[fe80::1]',
      '[fd00:ec2::254]',
      '[::ffff:169.254.169.254]',
      '[::ffff:0:a9fe:a9fe]',
      '0.0.0.0',
      '[::]',
      '224.0.0.1',
    ]) {
      assert.equal(isForbiddenHost(host, 'sandbox'), true, host);
    }
  });

  test('a forbidden host is refused for good, before connecting, and the refusal names no address', async () => {
    const receiver = await TestReceiver.start();
    const live = createPoster({ timeoutMs: 1_000, mode: 'live' });
    const sandbox = createPoster({ timeoutMs: 1_000, mode: 'sandbox' });
    try {
      for (const url of [`${receiver.url}/hook`, `http://localhost:${new URL(receiver.url).port}/hook`]) {
        const refused = await live.post(url, { 'content-type': 'application/json' }, '{}');
        assert.equal(refused.final, true);
        assert.equal(refused.error, 'refused: the host is, or resolves to, an address paygate may not call');
        assert.equal(judgeAttempt(refused.status, refused.final), 'failed');
      }
      const metadata = await sandbox.post('http://169.254.169.254/latest/meta-data/', {}, '{}');
      assert.deepEqual(
        [metadata.status, metadata.final, metadata.error],
        [undefined, true, 'refused: the host is, or resolves to, an address paygate may not call'],
      );
      assert.equal(receiver.received.length, 0, 'nothing reached the receiver');

      const answered = await sandbox.post(`${receiver.url}/hook`, { 'content-type': 'application/json' }, '{}');
      assert.deepEqual([answered.status, answered.final], [200, undefined]);
      assert.equal(receiver.received.length, 1);
    } finally {
      live.close();
      sandbox.close();
      await receiver.close();
    }
  });

  test('a timeout, a refused connection and a name that does not resolve are retried, each told in words a merchant can act on; what was answered is judged by its status', async () => {
    const receiver = await TestReceiver.start();
    receiver.answer = () => 'hang';
    const poster = createPoster({ timeoutMs: 200, mode: 'sandbox' });
    try {
      const timedOut = await poster.post(`${receiver.url}/slow`, {}, '{}');
      assert.equal(timedOut.error, 'no answer: nothing came back within 200 ms');
      assert.equal(judgeAttempt(timedOut.status, timedOut.final), 'retry');
      const port = Number(new URL(receiver.url).port);
      await receiver.close();
      const refused = await poster.post(`http://127.0.0.1:${port}/gone`, {}, '{}');
      assert.equal(refused.error, 'no answer: the connection failed: refused (nothing listens there)');
      const unknown = await poster.post('http://no-such-host.invalid/hook', {}, '{}');
      assert.equal(unknown.error, 'no answer: the name no-such-host.invalid does not resolve to an address');
      assert.ok(unknown.durationMs < 200, 'told as soon as the name is found not to resolve, not after the time limit');
      assert.equal(judgeAttempt(refused.status, refused.final), 'retry');
      assert.equal(judgeAttempt(unknown.status, unknown.final), 'retry');
    } finally {
      poster.close();
    }
    assert.deepEqual(
      [200, 204, 299].map((s) => judgeAttempt(s)),
      ['delivered', 'delivered', 'delivered'],
    );
    assert.deepEqual(
      [408, 429, 500, 503].map((s) => judgeAttempt(s)),
      ['retry', 'retry', 'retry', 'retry'],
    );
    assert.deepEqual(
      [301, 400, 401, 403, 404, 410].map((s) => judgeAttempt(s)),
      Array(6).fill('failed'),
    );
  });

  test('in live mode a refused, reset or silent connection are told in the same words: paygate says nothing of which ports are open', () => {
    const live = failureWords(10_000, 'live');
    const sandbox = failureWords(10_000, 'sandbox');
    const merged = 'no answer: the connection failed, or nothing came back within 10000 ms';
    const error = (code: string, message = code) => Object.assign(new Error(message), { code });
    assert.deepEqual(
      [
        live.timedOut,
        live.of(error('ECONNREFUSED'), 'h'),
        live.of(error('ECONNRESET'), 'h'),
        live.of(error('EHOSTUNREACH'), 'h'),
      ],
      [merged, merged, merged, merged],
    );
    assert.notEqual(sandbox.of(error('ECONNREFUSED'), 'h'), sandbox.of(error('ECONNRESET'), 'h'));
    // What says nothing of a port is told in every mode: a name, and the receiver's certificate.
    for (const words of [live, sandbox]) {
      assert.equal(
        words.of(error('ENOTFOUND'), 'hooks.example.com'),
        'no answer: the name hooks.example.com does not resolve to an address',
      );
      assert.equal(
        words.of(error('CERT_HAS_EXPIRED'), 'h'),
        'no answer: TLS refused the receiver: its certificate has expired',
      );
      assert.equal(
        words.of(error('ERR_TLS_CERT_ALTNAME_INVALID'), 'h'),
        'no answer: TLS refused the receiver: its certificate is not for this host name',
      );
    }
  });
});
