import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { runCrashCampaign } from '../support/crash-campaign.js';

// Issue 17: the crash campaign's shorter run (the full one: `npm run crash-campaign`, docs/operations.md). A seeded
// mixed load on real server processes (two sharing PostgreSQL when DATABASE_URL is set), killed with SIGKILL and
// restarted; afterwards nothing acknowledged is missing, nothing was done twice, the ledger agrees and every event
// reached the receiver.
describe('the crash campaign, short run', () => {
  test('killed 4 times under a mixed load: nothing lost, nothing done twice', { timeout: 300_000 }, async () => {
    const report = await runCrashCampaign({ seed: 20261129, kills: 4, maxPauseMs: 2_500 });
    assert.deepEqual(report.problems, [], JSON.stringify(report, null, 2));
    assert.equal(report.kills, 4);
    const total = Object.values(report.acknowledged).reduce((a, b) => a + b, 0);
    assert.ok(total >= 10, `a load ran between the kills: ${JSON.stringify(report.acknowledged)}`);
    assert.ok(report.resent >= 1, 'the kills cut requests off, which were sent again');
    assert.ok(report.events.recorded > 0 && report.events.received >= report.events.recorded);
  });
});
