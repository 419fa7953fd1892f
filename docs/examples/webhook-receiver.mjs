// A webhook receiver for paygate, in plain Node (no framework): verifies each delivery, answers at once, and
// hands the event to the shop's own work, once per event id.
//
//   WEBHOOK_PUBLIC_KEY_FILE=webhook-public.pem PUBLIC_URL=https://shop.example.com node webhook-receiver.mjs
//
// WEBHOOK_PUBLIC_KEY_FILE holds the `webhook_public_key` paygate printed when the app was created.
// PUBLIC_URL is this receiver's address as paygate calls it (the signature covers the path and query).
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { verifyWebhook } from '@paygate/client';

const publicKey = readFileSync(process.env.WEBHOOK_PUBLIC_KEY_FILE, 'utf8');
const publicUrl = process.env.PUBLIC_URL.replace(/\/+$/, '');
const port = Number(process.env.PORT ?? 3000);
/** Event ids already handled. A real shop keeps these in its database, in the transaction that handles the event. */
const seen = new Set();

const server = createServer((request, response) => {
  const chunks = [];
  request.on('data', (chunk) => chunks.push(chunk));
  request.on('end', () => {
    const rawBody = Buffer.concat(chunks); // the exact bytes: never re-serialise parsed JSON to verify
    let event;
    try {
      event = verifyWebhook(request.headers, rawBody, publicKey, `${publicUrl}${request.url}`);
    } catch (error) {
      response.writeHead(403).end(); // not from paygate: paygate treats 4xx as final and does not retry
      console.error(`refused a webhook: ${error.message}`);
      return;
    }
    // Answer first and quickly: paygate waits 10 s at most, then counts the attempt as failed and retries.
    response.writeHead(200).end('ok');
    if (seen.has(event.eventId)) return; // a redelivery or a retry of what arrived already
    seen.add(event.eventId);
    handle(event);
  });
});

/**
 * The shop's own work, by kind of event (docs/webhooks.md lists them). Order events carry the order as it was at
 * the event; payment token events carry the customer and the token; plan events the plan and the billing; batch events the
 * batch; user events the user; card events the card (masked); card transaction events what the card did (as operation 4
 * shows it) with its own state and, when declined, why; payout events the payout request (as operation 9 shows it). A kind this shop does not know yet (paygate
 * may add some) is noted and left alone: it was answered 200 all the same, and is never sent again.
 */
function handle(event) {
  const { data } = event.body;
  if (event.action.startsWith('order.') || event.action.startsWith('transaction.')) {
    const { order } = data;
    log({ action: event.action, order: order.reference_number, state: order.state, correspondence_state: order.correspondence_state });
  } else if (event.action.startsWith('payment_token.')) {
    log({ action: event.action, customer: data.customer_uuid, token: data.payment_token.token, token_state: data.payment_token.state });
  } else if (event.action.startsWith('recurring.')) {
    const { plan, billing } = data;
    log({ action: event.action, plan: plan.reference_number, plan_state: plan.state, order: billing?.order_number, retry_at: billing?.retry_at });
  } else if (event.action.startsWith('batch.')) {
    const { batch_info: batch } = data;
    log({ action: event.action, batch: batch.id, status: batch.upload_status, succeeded: batch.successful_records, failed: batch.failed_records });
  } else if (event.action.startsWith('user.')) {
    const { user } = data;
    log({ action: event.action, user: user.reference_id, verification_status: user.verification_status, rejection_reason: user.rejection_reason });
  } else if (event.action.startsWith('card.')) {
    const { card } = data;
    log({ action: event.action, card: card.id, status: card.status, pan: card.pan });
  } else if (event.action.startsWith('card_transaction.')) {
    const { transaction, state, decline_reason: declineReason } = data;
    log({ action: event.action, card: transaction.card, transaction: transaction.id, state, amount: transaction.transaction_amount, decline_reason: declineReason });
  } else if (event.action.startsWith('payout.')) {
    const { payout_request: payout } = data;
    log({ action: event.action, payout: payout.id, schedule_status: payout.schedule_status, transfer_status: payout.transfer_status, reason: payout.status_reason });
  } else {
    log({ action: event.action, unhandled: true });
  }

  function log(fields) {
    console.log(JSON.stringify({ event_id: event.eventId, ...fields }));
  }
}

server.listen(port, '127.0.0.1', () => console.error(`listening on ${port}`));
