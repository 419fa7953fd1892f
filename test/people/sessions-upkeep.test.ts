import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createMerchant } from '../../src/merchants/merchants.js';
import { OPERATOR } from '../../src/people/audit.js';
import { peopleModule } from '../../src/people/index.js';
import { addPerson } from '../../src/people/people.js';
import { purgeEndedSessions, sessionOf, signIn } from '../../src/people/sessions.js';
import { openTestPlatform, type TestPlatform } from '../support/platform.js';
import { TestClock } from '../support/server.js';

// The people module's upkeep: sessions idle past the configured time and failed sign-ins whose window has passed
// are forgotten, so neither table grows with time.

describe('dashboard sessions upkeep', () => {
  const clock = new TestClock();
  let platform: TestPlatform;

  before(async () => {
    platform = await openTestPlatform(clock);
  });
  after(() => platform.close());

  test('the periodic job forgets idle sessions and past failures, and keeps what is live', async () => {
    const ctx = platform.platform;
    assert.ok(peopleModule.jobs?.some((job) => job.kind === 'people.purge_ended_sessions'));
    const merchant = await createMerchant(ctx, { name: 'Upkeep' });
    const password = 'a long enough password';
    await addPerson(
      ctx,
      { merchantId: merchant.merchant_id, email: 'idle@upkeep.test', role: 'viewer', password },
      OPERATOR,
    );
    await addPerson(
      ctx,
      { merchantId: merchant.merchant_id, email: 'busy@upkeep.test', role: 'viewer', password },
      OPERATOR,
    );
    const idle = await signIn(ctx, { email: 'idle@upkeep.test', password, address: '192.0.2.7' });
    await assert.rejects(signIn(ctx, { email: 'idle@upkeep.test', password: 'wrong', address: '192.0.2.7' }));
    const count = async (table: 'dashboard_sessions' | 'dashboard_sign_in_failures') =>
      Number(
        (
          await ctx.db
            .selectFrom(table)
            .select((eb) => eb.fn.countAll<number>().as('n'))
            .executeTakeFirstOrThrow()
        ).n,
      );
    assert.equal(await count('dashboard_sign_in_failures'), 2, 'one for the address, one for the account');

    clock.advance(20 * 60_000);
    const busy = await signIn(ctx, { email: 'busy@upkeep.test', password, address: '192.0.2.8' });
    await purgeEndedSessions(ctx);
    assert.equal(await count('dashboard_sessions'), 2, 'twenty minutes idle is within the 30');
    assert.equal(await count('dashboard_sign_in_failures'), 0, 'the 15-minute window has passed');

    clock.advance(15 * 60_000);
    await purgeEndedSessions(ctx);
    assert.equal(await count('dashboard_sessions'), 1);
    assert.equal(await sessionOf(ctx, idle.sessionId), undefined);
    assert.equal((await sessionOf(ctx, busy.sessionId))?.person.email, 'busy@upkeep.test');
  });
});
