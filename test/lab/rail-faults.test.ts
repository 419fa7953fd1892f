import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { MerchantWorld, SANDBOX, TREASURY } from '../support/merchant-world.js';
import { TestReceiver } from '../support/receiver.js';
import { refusal } from '../support/refusal.js';
import { startTestServer, type TestServer } from '../support/server.js';

/**
 * Fault rules on the rails (docs/lab.md): the next card payments declined with a code or left unanswered by the
 * acquirer, the next card authorisation declined with the issuer's reason, the next payout's transfer rejected or
 * returned by the bank. Each applies to the merchant's next K calls only, and to no other merchant.
 */
describe('fault rules on the rails', () => {
  let server: TestServer;
  let receiver: TestReceiver;
  let world: MerchantWorld;
  let other: MerchantWorld;

  before(async () => {
    server = await startTestServer();
    receiver = await TestReceiver.start();
    world = await MerchantWorld.build(server, await server.newMerchant(), `${receiver.url}/world`);
    other = await MerchantWorld.build(server, await server.newMerchant(), `${receiver.url}/other`);
  });
  after(async () => {
    await server.close();
    await receiver.close();
  });

  const VISA = {
    number: '4242424242424242',
    exp_month: '12',
    exp_year: '2035',
    cvv: '123',
    holder_name: 'Chan Tai Man',
  };

  async function pay(on: MerchantWorld) {
    const order = await on.newOrder({ amount: '5.00' });
    return on.merchant.client.orders.pay({ number: order.number }, { credit_card: VISA });
  }

  test('card-payment: the next payment is declined with the code, the one after goes through; another merchant is untouched', async () => {
    const rule = await world.merchant.client.faults.add({ rail: 'card-payment', decline: '51', next: 1 });
    const otherPaid = await pay(other);
    assert.equal(otherPaid.transaction.success, true, "another merchant's payment is not the rule's");
    const declined = await pay(world);
    assert.equal(declined.transaction.success, false);
    assert.deepEqual(
      [declined.transaction.payment_data?.resp_code, declined.transaction.payment_data?.resp_msg],
      ['51', 'Insufficient funds'],
    );
    const paid = await pay(world);
    assert.equal(paid.transaction.success, true);
    const [listed] = (await world.merchant.client.faults.list()).filter((r) => r.id === rule.id);
    assert.deepEqual([listed!.target, listed!.effect, listed!.used_up], ['card-payment', 'decline 51', true]);
  });

  test('card-payment: an acquirer timeout leaves the payment unanswered (502 400302), for recovery to resolve', async () => {
    await world.merchant.client.faults.add({ rail: 'card-payment', acquirer_timeout: true, next: 1 });
    const refused = await refusal(pay(world));
    assert.deepEqual([refused.status, refused.errorCode], [502, '400302']);
    assert.equal((await pay(world)).transaction.success, true, 'the next payment is answered');
  });

  test("card-authorisation: the next purchase is declined with the issuer's reason", async () => {
    await world.merchant.client.faults.add({ rail: 'card-authorisation', decline: 'insufficient_funds', next: 1 });
    const purchase = {
      card_id: world.card.id,
      amount: '1.00',
      currency: 'HKD',
      merchant: { id: 'MID-1', name: 'Kiosk', city: 'Hong Kong', country: 'HK', category: '5499' },
    };
    const declined = await world.call('POST', `${SANDBOX}/issuing/authorizations`, purchase);
    assert.equal(declined.transaction.status, 'Declined');
    assert.equal(declined.decline_reason, 'insufficient_funds');
    const approved = await world.call('POST', `${SANDBOX}/issuing/authorizations`, purchase);
    assert.equal(approved.transaction.status, 'Authorized');
    const refused = await refusal(
      world.merchant.client.faults.add({ rail: 'card-authorisation', decline: 'bad luck', next: 1 }),
    );
    assert.equal(refused.errorCode, '900302');
  });

  test('payout: the next transfer is rejected by the bank; a returned one settles, then comes back', async () => {
    const advance = async (id: string) =>
      (await world.call('POST', `${SANDBOX}/payout_requests/${id}/advance`)).payout_request;
    await world.merchant.client.faults.add({ rail: 'payout', reject: true, next: 1 });
    const rejectedId = await world.newPayout('1.00');
    await world.call('POST', `${TREASURY}/payout_requests/${rejectedId}/approve`).catch(() => undefined);
    let rejected = await advance(rejectedId);
    if (rejected.transfer_status !== 'Terminated') rejected = await advance(rejectedId);
    assert.equal(rejected.transfer_status, 'Terminated');
    assert.match(rejected.status_reason, /rejected the transfer \(sandbox fault rule\)/);

    await world.merchant.client.faults.add({ rail: 'payout', return: true, next: 1 });
    const returnedId = await world.newPayout('1.00');
    await world.call('POST', `${TREASURY}/payout_requests/${returnedId}/approve`).catch(() => undefined);
    const statuses: string[] = [];
    for (let step = 0; step < 6 && statuses.at(-1) !== 'Refunded'; step += 1) {
      const payout = await advance(returnedId);
      if (statuses.at(-1) !== payout.transfer_status) statuses.push(payout.transfer_status);
    }
    assert.deepEqual(statuses.slice(-4), ['Processing Transfer', 'Settled', 'Reversed', 'Refunded']);
  });
});
