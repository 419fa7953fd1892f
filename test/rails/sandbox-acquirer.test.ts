import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { SandboxAcquirer } from '../../src/rails/sandbox/acquirer.js';
import { CARDS, futureExpiry } from '../support/fixtures.js';
import { openTestPlatform, type TestPlatform } from '../support/platform.js';
import { TestClock } from '../support/server.js';

const card = { number: CARDS.visa, expMonth: 12, expYear: Number(futureExpiry().exp_year), cvv: '123', holderName: 'Chan' };

describe('the sandbox acquirer', () => {
  let platform: TestPlatform;
  let acquirer: SandboxAcquirer;
  before(async () => {
    platform = await openTestPlatform(new TestClock());
    acquirer = new SandboxAcquirer({ db: platform.platform.db, wallClock: platform.platform.wallClock, config: { publicBaseUrl: 'http://sandbox.test' } });
  });
  after(() => platform.close());

  const operation = (reference: string) => ({ reference, merchantId: 'm-1', amount: 1000, currency: 'HKD' });

  test('does an operation once: the same reference again gets the first answer', async () => {
    const first = await acquirer.authorize({ ...operation('op-once'), capture: true, card });
    const again = await acquirer.authorize({ ...operation('op-once'), capture: true, card: { ...card, number: '4000000000000002' } });
    assert.equal(first.status, 'approved');
    assert.deepEqual(again, first);
  });

  test('resolving an operation that never arrived cancels it: arriving late, it is refused', async () => {
    const resolved = await acquirer.resolve({ ...operation('op-late'), kind: 'authorize' });
    assert.deepEqual([resolved.status, resolved.responseCode], ['failed', '91']);
    const late = await acquirer.authorize({ ...operation('op-late'), capture: true, card });
    assert.deepEqual(late, resolved, 'the late request is not charged');
  });

  test('resolving an operation that did arrive returns what happened to it', async () => {
    const charged = await acquirer.authorize({ ...operation('op-arrived'), capture: true, card });
    assert.deepEqual(await acquirer.resolve({ ...operation('op-arrived'), kind: 'authorize' }), charged);
  });

  test('auth codes and reference numbers are derived from the reference, so runs repeat', async () => {
    const a = await acquirer.authorize({ ...operation('op-derived'), capture: true, card });
    assert.match(a.authCode ?? '', /^[0-9A-Z]{6}$/);
    assert.match(a.rrn, /^\d{12}$/);
    const other = new SandboxAcquirer({ db: platform.platform.db, wallClock: platform.platform.wallClock, config: { publicBaseUrl: 'http://x' } });
    await platform.platform.db.deleteFrom('sandbox_acquirer_operations').where('reference', '=', 'op-derived').execute();
    const b = await other.authorize({ ...operation('op-derived'), capture: true, card });
    assert.deepEqual([b.authCode, b.rrn], [a.authCode, a.rrn]);
  });
});
