import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { createPoster } from '../../src/events/post.js';
import { judgeAttempt } from '../../src/events/retry-schedule.js';
import { isInternalHost } from '../../src/platform/urls.js';
import { TestReceiver } from '../support/receiver.js';

// The webhook poster on its own: what live mode refuses to call, and what counts as an answer.

describe('posting webhooks', () => {
  test('internal hosts: loopback, private, link-local and the IPv6 forms that embed them', () => {
    for (const host of ['127.0.0.1', 'localhost', 'api.localhost', '10.1.2.3', '172.16.0.1', '192.168.1.1', '169.254.169.254', '100.64.0.1',
      '[::1]', '[fe80::1]', '[fd00::1]', '[::ffff:127.0.0.1]', '[64:ff9b::a00:1]', '[2002:7f00:1::]', '0.0.0.0', '198.18.0.1', '224.0.0.1']) {
      assert.equal(isInternalHost(host), true, host);
    }
    for (const host of ['203.0.113.7', 'shop.example.com', '[2001:db8::1]', '8.8.8.8', '[::ffff:203.0.113.7]', '[::ffff:cb00:7107]']) {
      assert.equal(isInternalHost(host), false, host);
    }
    assert.equal(isInternalHost('[::ffff:7f00:1]'), true, 'the hex form of a mapped loopback');
  });

  test('live mode refuses an internal address for good, before connecting; sandbox mode calls it', async () => {
    const receiver = await TestReceiver.start();
    const live = createPoster({ timeoutMs: 1_000, refuseInternal: true });
    const sandbox = createPoster({ timeoutMs: 1_000, refuseInternal: false });
    try {
      const refused = await live.post(`${receiver.url}/hook`, { 'content-type': 'application/json' }, '{}');
      assert.equal(refused.final, true);
      assert.match(refused.error ?? '', /internal address/);
      assert.equal(judgeAttempt(refused.status, refused.final), 'failed');
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

  test('a timeout and a refused connection are retried; what was answered is judged by its status', async () => {
    const receiver = await TestReceiver.start();
    receiver.answer = () => 'hang';
    const poster = createPoster({ timeoutMs: 200, refuseInternal: false });
    try {
      const timedOut = await poster.post(`${receiver.url}/slow`, {}, '{}');
      assert.match(timedOut.error ?? '', /no answer within 200 ms/);
      assert.equal(judgeAttempt(timedOut.status, timedOut.final), 'retry');
      const port = Number(new URL(receiver.url).port);
      await receiver.close();
      const refused = await poster.post(`http://127.0.0.1:${port}/gone`, {}, '{}');
      assert.match(refused.error ?? '', /ECONNREFUSED/);
      assert.equal(judgeAttempt(refused.status, refused.final), 'retry');
    } finally {
      poster.close();
    }
    assert.deepEqual([200, 204, 299].map((s) => judgeAttempt(s)), ['delivered', 'delivered', 'delivered']);
    assert.deepEqual([408, 429, 500, 503].map((s) => judgeAttempt(s)), ['retry', 'retry', 'retry', 'retry']);
    assert.deepEqual([301, 400, 401, 403, 404, 410].map((s) => judgeAttempt(s)), Array(6).fill('failed'));
  });
});
