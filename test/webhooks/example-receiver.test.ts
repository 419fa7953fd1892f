import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { setAppWebhookUrl } from '../../src/merchants/apps.js';
import { MODULES } from '../../src/modules.js';
import { PROJECT_ROOT } from '../../src/platform/version.js';
import { bindingCard, CARDS, card, newCustomer, newOrder } from '../support/fixtures.js';
import { spend, userInput } from '../support/issuing.js';
import { freePort } from '../support/processes.js';
import { startTestServer } from '../support/server.js';

const DAY = 86_400;

// docs/examples/webhook-receiver.mjs is what merchants copy: it must take every kind of event paygate sends.
describe('the example webhook receiver of docs/', () => {
  test('handles every event kind paygate sends, once each, and keeps running', async () => {
    const server = await startTestServer();
    const dir = mkdtempSync(join(tmpdir(), 'paygate-receiver-'));
    const merchant = await server.newMerchant();
    const { client } = merchant;
    const keyFile = join(dir, 'webhook-public.pem');
    writeFileSync(keyFile, merchant.webhookPublicKey);
    const port = await freePort();
    const child = spawn(process.execPath, [join(PROJECT_ROOT, 'docs', 'examples', 'webhook-receiver.mjs')], {
      env: {
        ...process.env,
        WEBHOOK_PUBLIC_KEY_FILE: keyFile,
        PUBLIC_URL: `http://127.0.0.1:${port}`,
        PORT: String(port),
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const handled = () =>
      stdout
        .trim()
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line) as Record<string, string>);
    const until = async (condition: () => boolean, what: string) => {
      for (let i = 0; i < 400 && !condition(); i += 1) await new Promise((resolve) => setTimeout(resolve, 25));
      assert.ok(condition(), `${what}; stdout: ${stdout}; stderr: ${stderr}`);
    };
    try {
      await until(() => stderr.includes('listening'), 'the receiver starts');
      // The app's endpoint gets every event of the merchant, of every kind.
      await setAppWebhookUrl(server.platform, merchant.appId, `http://127.0.0.1:${port}/paygate/webhooks`);

      const paid = await newOrder(client, { charge_fee: '10.00' });
      const { transaction: sale } = await client.orders.pay({ number: paid.number }, { credit_card: card(CARDS.visa) });
      const held = await newOrder(client, { charge_fee: '11.00' });
      const { transaction: authorisation } = await client.orders.pay(
        { number: held.number },
        { credit_card: card(CARDS.visa, { consume_mode: 'pre_authorize' }) },
      );
      await client.transactions.void(authorisation.uuid);
      const declined = await newOrder(client, { charge_fee: '12.00' });
      await client.orders.pay({ number: declined.number }, { credit_card: card(CARDS.doNotHonour) });
      await client.orders.void({ number: declined.number });
      await client.sandbox.advanceClock(DAY);
      await client.transactions.refund(sale.uuid, { amount: '1.00' });
      const customer = await newCustomer(client);
      const bound = await client.customers.bindCard(customer.uuid, bindingCard(CARDS.frictionless));
      await client.customers.bindCard(customer.uuid, bindingCard(CARDS.doNotHonour));
      await client.customers.deleteToken(customer.uuid, bound.token);
      // A plan of two free daily cycles (created, cycle started, completed: no orders), one whose charges are
      // declined (a failed payment, retried once, then uncollectible), and one cancelled.
      const subscriber = await newCustomer(client);
      const free = await client.customers.bindCard(subscriber.uuid, bindingCard(CARDS.frictionless));
      const trial = await client.recurring.createItem({ label: 'Trial', price: '0', currency: 'HKD' });
      const daily = await client.recurring.createBillingConfig({
        billing_interval: 'daily',
        billing_type: 'automated',
      });
      const oneDay = { recurring_items: [{ id: trial.id }], recurring_billing_config: daily.id, interval_counts: 1 };
      await client.recurring.createPlan({
        name: 'Trial',
        reference_number: `TRIAL-${subscriber.uuid}`,
        customer_uuid: subscriber.uuid,
        default_payment_token: free.token,
        cycles: [oneDay, oneDay],
      });
      const declining = await newCustomer(client);
      const empty = await client.customers.bindCard(declining.uuid, bindingCard(CARDS.bindsThenDeclines));
      const paidItem = await client.recurring.createItem({ label: 'Gold', price: '10.00', currency: 'HKD' });
      await client.recurring.createPlan({
        name: 'Gold',
        reference_number: `GOLD-${declining.uuid}`,
        customer_uuid: declining.uuid,
        default_payment_token: empty.token,
        payment_retry_count: 1,
        payment_retry_day_period: 1,
        cycles: [{ recurring_items: [{ id: paidItem.id }], recurring_billing_config: daily.id }],
      });
      // And one cancelled at once (plan created, then cancelled).
      const cancelled = await client.recurring.createPlan({
        name: 'Cancelled',
        reference_number: `CANCEL-${subscriber.uuid}`,
        customer_uuid: subscriber.uuid,
        default_payment_token: free.token,
        cycles: [{ recurring_items: [{ id: trial.id }], recurring_billing_config: daily.id }],
      });
      await client.recurring.cancelPlan(cancelled.id, { activate_type: 'immediate' });
      await client.sandbox.advanceClock(2 * DAY + 60);

      // Batches: one processed (its only row refused by its own cells, so no order), one whose file cannot be read,
      // and one cancelled while its file is being fetched.
      await client.batches.upload(
        'Action,Reference Number,Customer UUID,Amount,Token ID\r\npayment,B-1,,1.001,tok\r\n',
        { kind: 'csv' },
      );
      await client.batches.upload('Action,Amount\r\npayment,1.00\r\n', { kind: 'csv' });
      let answerFile = () => {};
      const files = createServer((_request, response) => {
        answerFile = () => response.writeHead(404).end();
      });
      await new Promise<void>((resolve) => files.listen(0, '127.0.0.1', resolve));
      try {
        const held = await client.batches.create({
          file_url: `http://127.0.0.1:${(files.address() as AddressInfo).port}/dues.csv`,
        });
        for (
          let i = 0;
          i < 400 && (await client.batches.get(held.id)).batch_info.upload_status !== 'processing';
          i += 1
        )
          await new Promise((resolve) => setTimeout(resolve, 25));
        await client.batches.cancel(held.id);
      } finally {
        answerFile();
        files.closeAllConnections();
        files.close();
      }

      // Issuing: users approved, rejected and edited; a card locked, unlocked, given new limits, and one terminated;
      // what a card does: authorised, incremented, reversed in part, settled; declined; a refund; a withdrawal; an
      // authorisation left to expire.
      await client.sandbox.topUp({ currency: 'HKD', amount: '1000.00' });
      const cardholder = await client.users.create(userInput());
      await client.users.update(cardholder, { first_name: 'Tai Man' });
      await client.users.create(userInput({ last_name: 'Reject' }));
      const issued = await client.cards.create({
        user_id: cardholder,
        reference_id: `CARD-${cardholder}`,
        title: 'Travel',
        settlement_currency: 'HKD',
      });
      await client.cards.lock(issued.id);
      await client.cards.unlock(issued.id);
      await client.cards.setLimits(issued.id, [{ period: 'transaction', limit_amount: '100.00' }]);
      const { transaction: purchase } = await client.sandbox.authorize(spend(issued.id, '10.00'));
      await client.sandbox.increment(purchase.id, '1.00');
      await client.sandbox.reverse(purchase.id, '1.00');
      await client.sandbox.settle(purchase.id);
      await client.sandbox.authorize(spend(issued.id, '500.00'));
      await client.sandbox.refundToCard(spend(issued.id, '1.00'));
      await client.sandbox.withdraw(spend(issued.id, '5.00'));
      await client.sandbox.authorize(spend(issued.id, '2.00'));
      await client.sandbox.advanceClock(7 * DAY + 120);
      const spare = await client.cards.create({
        user_id: cardholder,
        reference_id: `SPARE-${cardholder}`,
        title: 'Spare',
        settlement_currency: 'HKD',
      });
      await client.cards.terminate(spare.id);

      // Payouts: one settled, one rejected by the bank, one returned after it settled; approval decided three ways, one
      // short of funds.
      const payee = async (fpsId: string) =>
        (
          await client.payees.create({
            type: 'People',
            nickname: fpsId,
            payout_account: {
              country: 'HK',
              currency: 'HKD',
              transfer_method: 'HK FPS- FPS ID',
              hk_fps: { fps_id: fpsId },
            },
          })
        ).id;
      const payout = async (payeeId: string, amount = '10.00') =>
        (
          await client.payouts.create({
            payee_id: payeeId,
            currency: 'HKD',
            amount,
            callback_url: 'http://127.0.0.1:9/payouts',
            schedule_at: '2099-01-01T00:00:00Z',
          })
        ).id;
      const [settles, rejects, returns] = [await payee('12345671'), await payee('12340002'), await payee('12340003')];
      for (const [payeeId, steps] of [
        [settles, 2],
        [rejects, 2],
        [returns, 4],
      ] as const) {
        const id = await payout(payeeId);
        for (let step = 0; step < steps; step += 1) await client.sandbox.advancePayout(id);
      }
      await client.payouts.approve(await payout(settles, '20000.00'));
      await client.payouts.reject(await payout(settles, '20000.00'));
      await client.payouts.cancel(await payout(settles, '20000.00'));
      // Without a schedule_at, approved: the scheduler runs it at once, and the balance is short.
      const short = (
        await client.payouts.create({
          payee_id: settles,
          currency: 'HKD',
          amount: '20000.00',
          callback_url: 'http://127.0.0.1:9/payouts',
        })
      ).id;
      await client.payouts.approve(short);

      const sent = MODULES.flatMap((module) => (module.events ?? []).map((type) => type.action)).sort();
      await until(
        () => new Set(handled().map((line) => line.action)).size === sent.length,
        'every kind of event arrived',
      );
      assert.deepEqual(
        [...new Set(handled().map((line) => line.action))].sort(),
        sent,
        'the receiver saw every kind paygate sends',
      );
      assert.equal(handled().filter((line) => line.unhandled).length, 0, 'and knew each of them');
      assert.equal(new Set(handled().map((line) => line.event_id)).size, handled().length, 'each event handled once');
      const byAction = (action: string) => handled().filter((line) => line.action === action);
      assert.deepEqual(
        byAction('order.paid').map((line) => line.order),
        [paid.reference_number],
      );
      assert.deepEqual(
        byAction('payment_token.deleted').map((line) => [line.customer, line.token]),
        [[customer.uuid, bound.token]],
      );
      assert.deepEqual(
        byAction('payment_token.failed').map((line) => line.token_state),
        ['failed'],
      );
      assert.deepEqual(
        byAction('card_transaction.declined').map((line) => line.decline_reason),
        ['transaction_limit_exceeded'],
      );
      assert.deepEqual(
        byAction('card_transaction.expired').map((line) => line.state),
        ['Expired'],
      );
      assert.deepEqual(
        byAction('user.rejected').map((line) => line.verification_status),
        ['rejected'],
      );
      assert.deepEqual(
        byAction('payout.refunded').map((line) => line.transfer_status),
        ['Refunded'],
      );
      assert.deepEqual(
        byAction('payout.failed').map((line) => line.schedule_status),
        ['Failed'],
      );
      assert.equal(child.exitCode, null, `the receiver is still running; stderr: ${stderr}`);
    } finally {
      child.kill();
      rmSync(dir, { recursive: true, force: true });
      await server.close();
    }
  });
});
