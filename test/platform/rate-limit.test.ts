import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { callerKey } from '../../src/platform/net.js';
import { RateLimiter } from '../../src/platform/rate-limit.js';
import { TestClock } from '../support/server.js';

describe('the token bucket', () => {
  test('allows the burst at once, then the rate, and says when to come back', () => {
    const clock = new TestClock().freeze();
    const limiter = new RateLimiter(2, 3, clock);
    assert.deepEqual(
      [1, 2, 3, 4].map(() => limiter.take('a').allowed),
      [true, true, true, false],
    );
    assert.deepEqual(limiter.take('a'), { allowed: false, retryAfterSeconds: 1 });
    assert.equal(limiter.take('b').allowed, true, 'each key has its own bucket');
    clock.advance(500);
    assert.equal(limiter.take('a').allowed, true);
    assert.equal(limiter.take('a').allowed, false);
  });

  test('remembers at most maxKeys keys, forgetting the least recently used', () => {
    const clock = new TestClock().freeze();
    const limiter = new RateLimiter(1, 1, clock, 2);
    assert.equal(limiter.take('a').allowed, true);
    assert.equal(limiter.take('b').allowed, true);
    assert.equal(limiter.take('a').allowed, false, 'a is now the most recently used');
    assert.equal(limiter.take('c').allowed, true);
    assert.equal(limiter.take('a').allowed, false, 'a is still remembered: b went');
    assert.equal(limiter.take('b').allowed, true, 'b was forgotten, so it starts again');
  });
});

describe('who a caller is, for counting', () => {
  test('an IPv4 address as it is, in any spelling Node gives it', () => {
    assert.equal(callerKey('203.0.113.9'), '203.0.113.9');
    assert.equal(callerKey('::ffff:203.0.113.9'), '203.0.113.9');
  });

  test("an IPv6 address's /64, however it is written", () => {
    const key = '2001:0db8:0001:0002::/64';
    for (const address of [
      '2001:db8:1:2::1',
      '2001:DB8:1:2:ffff:ffff:ffff:ffff',
      '2001:db8:1:2:0:0:0:0',
      '2001:0db8:0001:0002::abcd',
    ]) {
      assert.equal(callerKey(address), key, address);
    }
    assert.equal(callerKey('::1'), '0000:0000:0000:0000::/64');
    assert.equal(callerKey('2001:db8::'), '2001:0db8:0000:0000::/64');
    assert.equal(callerKey('64:ff9b::203.0.113.9'), '0064:ff9b:0000:0000::/64');
    assert.notEqual(callerKey('2001:db8:1:3::1'), key);
  });
});
