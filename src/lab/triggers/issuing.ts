import {
  authorizePurchase,
  CardLimitsBody,
  CreateCardBody,
  creditRefund,
  IncrementBody,
  incrementAuthorization,
  issueCard,
  moveCard,
  ReverseBody,
  reverseAuthorization,
  SimulatedSpendBody,
  setCardLimits,
  settleAuthorization,
  withdrawCash,
} from '../../issuing/index.js';
import { TopUpBody, topUp } from '../../ledger/index.js';
import { majorUnits } from './common.js';
import { defineTrigger, field, type TriggerRun } from './trigger.js';
import { newUser } from './users.js';

const DAY_S = 24 * 60 * 60;

const CARD_FIELDS = [
  field('user_id', 'text', 'an approved user of the merchant to issue the card to, instead of a new one'),
  field('reference_id', 'text', "the card's reference id (a fresh TRIGGER-CARD-… by default)"),
  field('title', 'text', "the card's title"),
  field('type', 'text', "the card's type (Expense by default)"),
  field('settlement_currency', 'text', "the card's currency, HKD or USD (HKD by default)"),
];
const SPEND_FIELDS = [
  field('amount', 'amount', 'what the card spends (50 in the currency by default)'),
  field('currency', 'text', "the purchase's currency (the card's by default)"),
  field('merchant.id', 'text', "the card network merchant's id"),
  field('merchant.name', 'text', "the card network merchant's name"),
  field('merchant.city', 'text', "the card network merchant's city"),
  field('merchant.country', 'text', "the card network merchant's country, ISO 3166 (HK by default)"),
  field(
    'merchant.category',
    'text',
    "the card network merchant's category code, 4 digits (5999 by default; 6011 for a withdrawal)",
  ),
];

interface Card {
  id: string;
  currency: unknown;
}

/** A card issued to the user `user_id` names, or to a new approved user, as `POST cards` issues it. */
async function newCard(run: TriggerRun, limits?: unknown): Promise<Card> {
  const userId = run.given('user_id') ? run.value('user_id', undefined) : (await newUser(run, 'Chan')).id;
  const currency = run.value('settlement_currency', 'HKD');
  const card: Record<string, unknown> = {
    user_id: userId,
    reference_id: run.value('reference_id', run.unique('TRIGGER-CARD')),
    title: run.value('title', 'Trigger card'),
    settlement_currency: currency,
  };
  if (run.given('type')) card.type = run.value('type', undefined);
  if (limits !== undefined) card.limits = limits;
  const issued = await issueCard(run.ctx, run.check(CreateCardBody, { card }).card);
  run.made('card', { id: issued.id, reference_id: issued.reference_id });
  return { id: issued.id, currency: issued.settlement_currency };
}

/** Funds for the card to spend: the merchant's available balance topped up, as `POST balance/top_up` does. */
async function fund(run: TriggerRun, card: Card): Promise<void> {
  const { topUp: record } = await topUp(
    run.ctx,
    run.check(TopUpBody, { currency: card.currency, amount: majorUnits(card.currency, 100_000) }),
  );
  run.made('top_up', { id: record.id });
}

/** What the card network sends about the card (a purchase, a refund, a withdrawal), as the simulator takes it. */
function spend(run: TriggerRun, card: Card, category = '5999') {
  const currency = run.value('currency', card.currency);
  return run.check(SimulatedSpendBody, {
    card_id: card.id,
    amount: run.value('amount', majorUnits(currency, 50)),
    currency,
    merchant: {
      id: run.value('merchant.id', 'MID-TRIGGER'),
      name: run.value('merchant.name', category === '6011' ? 'ATM Trigger' : 'Trigger Store'),
      city: run.value('merchant.city', 'Hong Kong'),
      country: run.value('merchant.country', 'HK'),
      category: run.value('merchant.category', category),
    },
  });
}

/** A purchase, authorised (funds first): the authorisation's id. */
async function authorized(run: TriggerRun, card: Card): Promise<string> {
  await fund(run, card);
  const { row } = await authorizePurchase(run.ctx, spend(run, card));
  run.made('card_transaction', { id: row.id });
  return row.id;
}

const cardTrigger = (kind: string, makes: string, move?: (run: TriggerRun, cardId: string) => Promise<void>) =>
  defineTrigger({
    kind,
    makes,
    clock: 'none',
    fields: CARD_FIELDS,
    async run(run) {
      const card = await newCard(run);
      await move?.(run, card.id);
      return card.id;
    },
  });

export const CARD_TRIGGERS = [
  cardTrigger('card.created', 'an approved user (last name Chan), and a card issued to it'),
  cardTrigger('card.locked', 'a card (to a new approved user), locked', async (run, id) => {
    await moveCard(run.ctx, id, 'lock');
  }),
  cardTrigger('card.unlocked', 'a card, locked and unlocked', async (run, id) => {
    await moveCard(run.ctx, id, 'lock');
    await moveCard(run.ctx, id, 'unlock');
  }),
  cardTrigger('card.terminated', 'a card, terminated', async (run, id) => {
    await moveCard(run.ctx, id, 'terminate');
  }),
  defineTrigger({
    kind: 'card.limits_updated',
    makes: 'a card, and its limits replaced by a daily limit',
    clock: 'none',
    fields: [
      ...CARD_FIELDS,
      field('limit_amount', 'amount', "the daily limit (1000 in the card's currency by default)"),
    ],
    async run(run) {
      const card = await newCard(run);
      const body = {
        limits: [{ period: 'daily', limit_amount: run.value('limit_amount', majorUnits(card.currency, 1000)) }],
      };
      await setCardLimits(run.ctx, card.id, run.check(CardLimitsBody, body).limits);
      return card.id;
    },
  }),
];

const spendTrigger = (
  kind: string,
  makes: string,
  work: (run: TriggerRun, card: Card) => Promise<void>,
  options: { clock?: string; limits?: unknown } = {},
) =>
  defineTrigger({
    kind,
    makes,
    clock: options.clock ?? 'none',
    fields: [...CARD_FIELDS, ...SPEND_FIELDS],
    async run(run) {
      const card = await newCard(run, options.limits);
      await work(run, card);
      return card.id;
    },
  });

export const CARD_TRANSACTION_TRIGGERS = [
  spendTrigger(
    'card_transaction.authorized',
    'a card (to a new approved user), funds topped up, a purchase authorised',
    async (run, card) => {
      await authorized(run, card);
    },
  ),
  spendTrigger(
    'card_transaction.declined',
    'a card whose per-purchase limit is 0.01, and a purchase over it, declined (transaction_limit_exceeded)',
    async (run, card) => {
      const { row } = await authorizePurchase(run.ctx, spend(run, card));
      run.made('card_transaction', { id: row.id });
    },
    { limits: [{ period: 'transaction', limit_amount: '0.01' }] },
  ),
  spendTrigger(
    'card_transaction.incremented',
    'a purchase authorised, then its authorisation grown by a tenth',
    async (run, card) => {
      const id = await authorized(run, card);
      const amount = run.value('amount', majorUnits(run.value('currency', card.currency), 50));
      const increment = typeof amount === 'string' && /^\d+(\.\d+)?$/.test(amount) ? tenth(amount) : '1';
      await incrementAuthorization(run.ctx, id, run.check(IncrementBody, { amount: increment }));
    },
  ),
  spendTrigger('card_transaction.reversed', 'a purchase authorised, then all of it reversed', async (run, card) => {
    const id = await authorized(run, card);
    await reverseAuthorization(run.ctx, id, run.check(ReverseBody, {}));
  }),
  spendTrigger(
    'card_transaction.expired',
    'a purchase authorised and never settled: its authorisation expires',
    async (run, card) => {
      await authorized(run, card);
      await run.passTime(7 * DAY_S);
      // The expiry runs at the end of the business minute it falls in.
      await run.passTimeUntil(() => run.eventRecorded(card.id), 120, 'The authorisation’s expiry');
    },
    { clock: '7 days and up to a minute (to the expiry job at the end of that minute)' },
  ),
  spendTrigger(
    'card_transaction.settled',
    'a purchase authorised, then settled for the authorised amount',
    async (run, card) => {
      const id = await authorized(run, card);
      await settleAuthorization(run.ctx, id, {});
    },
  ),
  spendTrigger(
    'card_transaction.refunded',
    'a card, and a refund credited to it by a card network merchant',
    async (run, card) => {
      const { row } = await creditRefund(run.ctx, spend(run, card));
      run.made('card_transaction', { id: row.id });
    },
  ),
  spendTrigger(
    'card_transaction.withdrawn',
    'a card, funds topped up, and a cash withdrawal at an ATM (MCC 6011)',
    async (run, card) => {
      await fund(run, card);
      const { row } = await withdrawCash(run.ctx, spend(run, card, '6011'));
      run.made('card_transaction', { id: row.id });
    },
  ),
];

/** A tenth of a decimal amount, in its own decimals (at least one minor unit). */
function tenth(amount: string): string {
  const [whole = '0', fraction = ''] = amount.split('.');
  const minor = BigInt(whole + fraction);
  const part = minor / 10n > 0n ? minor / 10n : 1n;
  const text = part.toString().padStart(fraction.length + 1, '0');
  return fraction.length === 0 ? text : `${text.slice(0, -fraction.length)}.${text.slice(-fraction.length)}`;
}
