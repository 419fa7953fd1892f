import assert from 'node:assert/strict';
import { resolve } from 'node:path';
import { describe, test } from 'node:test';
import { ConfigError, loadConfig } from '../../src/platform/config.js';

describe('configuration', () => {
  test('defaults: sandbox, 127.0.0.1:8080, ./data, SQLite at synchronous=FULL, 1 MiB bodies', () => {
    const config = loadConfig({});
    assert.equal(config.mode, 'sandbox');
    assert.equal(config.host, '127.0.0.1');
    assert.equal(config.port, 8080);
    assert.equal(config.dataDir, resolve('data'));
    assert.equal(config.databaseUrl, undefined);
    assert.equal(config.sqliteSynchronous, 'FULL');
    assert.equal(config.bodyLimitBytes, 1024 * 1024);
    assert.equal(config.publicBaseUrl, 'http://127.0.0.1:8080');
    assert.equal(config.demo, true);
    assert.equal(config.jobLeaseMs, 20_000);
  });

  test('the heap may grow to twice what survives a collection unless told otherwise; 0 leaves it to V8', () => {
    assert.equal(loadConfig({}).heapGrowthPercent, 100);
    assert.equal(loadConfig({ PAYGATE_HEAP_GROWTH_PERCENT: '0' }).heapGrowthPercent, 0);
    assert.equal(loadConfig({ PAYGATE_HEAP_GROWTH_PERCENT: '50' }).heapGrowthPercent, 50);
    for (const value of ['-1', '1001', '1.5', 'half']) {
      assert.throws(
        () => loadConfig({ PAYGATE_HEAP_GROWTH_PERCENT: value }),
        (e) => e instanceof ConfigError && /^PAYGATE_HEAP_GROWTH_PERCENT: /m.test(e.problems.join('\n')),
        value,
      );
    }
  });

  test('the job lease is read in milliseconds, from 3 s to 10 minutes', () => {
    assert.equal(loadConfig({ PAYGATE_JOB_LEASE_MS: '5000' }).jobLeaseMs, 5_000);
    assert.deepEqual([loadConfig({}).jobLanes, loadConfig({}).jobNetworkSlots], [4, 8]);
    assert.deepEqual(
      [
        loadConfig({ PAYGATE_JOB_LANES: '2', PAYGATE_JOB_NETWORK_SLOTS: '1' }).jobLanes,
        loadConfig({ PAYGATE_JOB_NETWORK_SLOTS: '16' }).jobNetworkSlots,
      ],
      [2, 16],
    );
    for (const value of ['0', '65', 'four'])
      assert.throws(
        () => loadConfig({ PAYGATE_JOB_LANES: value }),
        (e) => e instanceof ConfigError && /^PAYGATE_JOB_LANES: /m.test(e.problems.join('\n')),
        value,
      );
    for (const value of ['2999', '600001', '20s']) {
      assert.throws(
        () => loadConfig({ PAYGATE_JOB_LEASE_MS: value }),
        (e) => e instanceof ConfigError && /^PAYGATE_JOB_LEASE_MS: /m.test(e.problems.join('\n')),
        value,
      );
    }
  });

  test('every bad value is reported at once, each naming its variable', () => {
    try {
      loadConfig({
        PORT: '99999',
        PAYGATE_MODE: 'prod',
        LOG_LEVEL: 'loud',
        DATABASE_URL: 'mysql://x',
        PAYGATE_TRUSTED_PROXIES: '10.0.0.0/8,not-an-ip',
        PAYGATE_BODY_LIMIT: '1kb',
      });
      assert.fail('expected a ConfigError');
    } catch (error) {
      assert.ok(error instanceof ConfigError);
      const text = error.problems.join('\n');
      for (const name of [
        'PORT',
        'PAYGATE_MODE',
        'LOG_LEVEL',
        'DATABASE_URL',
        'PAYGATE_TRUSTED_PROXIES',
        'PAYGATE_BODY_LIMIT',
      ]) {
        assert.match(text, new RegExp(`^${name}: `, 'm'), name);
      }
      assert.match(error.message, /^Invalid configuration:\n {2}- /);
    }
  });

  test('live mode needs a secret and has no demo; a short secret is refused', () => {
    assert.throws(
      () => loadConfig({ PAYGATE_MODE: 'live' }),
      (e) => e instanceof ConfigError && /PAYGATE_SECRET: required in live mode/.test(e.message),
    );
    assert.throws(() => loadConfig({ PAYGATE_SECRET: 'abcd' }), /PAYGATE_SECRET: must be at least 32 bytes/);
    const live = loadConfig({ PAYGATE_MODE: 'live', PAYGATE_SECRET: 'ab'.repeat(32) });
    assert.equal(live.secret?.length, 32);
    assert.equal(live.demo, false);
  });

  test('PostgreSQL, trusted proxies and the public base URL are read as given', () => {
    const config = loadConfig({
      DATABASE_URL: 'postgres://u@db/paygate',
      PAYGATE_TRUSTED_PROXIES: '10.0.0.0/8, ::ffff:192.168.1.1',
      PAYGATE_PUBLIC_BASE_URL: 'https://pay.example.com/',
      HOST: '0.0.0.0',
      PORT: '9000',
    });
    assert.equal(config.databaseUrl, 'postgres://u@db/paygate');
    assert.deepEqual(
      config.trustedProxies.map((c) => c.text),
      ['10.0.0.0/8', '192.168.1.1/32'],
    );
    assert.equal(config.publicBaseUrl, 'https://pay.example.com');
  });

  test('hosted pages and retention: link lifetimes, the decline cap and event retention, with their defaults', () => {
    const defaults = loadConfig({});
    assert.equal(defaults.paymentLinkTtlMs, 24 * 60 * 60_000);
    assert.equal(defaults.receiptLinkTtlMs, 60 * 60_000);
    assert.equal(defaults.pageDeclineLimit, 5);
    assert.equal(defaults.eventRetentionMs, 90 * 24 * 60 * 60_000);
    assert.equal(defaults.publicBaseUrlSet, false);
    const set = loadConfig({
      PAYGATE_PAYMENT_LINK_TTL_MINUTES: '30',
      PAYGATE_RECEIPT_LINK_TTL_MINUTES: '5',
      PAYGATE_PAGE_DECLINE_LIMIT: '3',
      PAYGATE_EVENT_RETENTION_DAYS: '7',
      PAYGATE_PUBLIC_BASE_URL: 'https://pay.example.com',
    });
    assert.deepEqual(
      [set.paymentLinkTtlMs, set.receiptLinkTtlMs, set.pageDeclineLimit, set.eventRetentionMs, set.publicBaseUrlSet],
      [30 * 60_000, 5 * 60_000, 3, 7 * 24 * 60 * 60_000, true],
    );
    assert.throws(
      () => loadConfig({ PAYGATE_PAGE_DECLINE_LIMIT: '0', PAYGATE_EVENT_RETENTION_DAYS: 'forever' }),
      (e) =>
        e instanceof ConfigError &&
        /PAYGATE_PAGE_DECLINE_LIMIT/.test(e.message) &&
        /PAYGATE_EVENT_RETENTION_DAYS/.test(e.message),
    );
  });

  test('a receipt font must exist; a collection names its font after #', () => {
    assert.throws(
      () => loadConfig({ PAYGATE_RECEIPT_FONT: '/no/such/font.ttf' }),
      /PAYGATE_RECEIPT_FONT: no font file/,
    );
    assert.deepEqual(loadConfig({ PAYGATE_RECEIPT_FONT: `${process.execPath}#Some-Font` }).receiptFont, {
      path: process.execPath,
      family: 'Some-Font',
    });
    assert.equal(loadConfig({}).receiptFont, undefined);
  });
});
