import type { Static } from 'typebox';
import { type Actor, type Context, inTransaction } from '../context/context.js';
import { AppError } from '../platform/errors.js';
import { isUuid } from '../platform/ids.js';
import { localDate, localTime } from '../platform/time-zone.js';
import { findUserByUserId } from '../users/index.js';
import { newCardNumber, newCvv } from './card-numbers.js';
import { ISSUING_ERRORS } from './errors.js';
import { type CARD_EVENTS, emitCardEvent } from './events.js';
import { type CardLimit, parseLimits, readLimits } from './limits.js';
import { type CardReply, presentCard } from './present.js';
import { CARD_VALID_YEARS, DEFAULT_CARD_TYPE } from './program.js';
import type { CardLimitsBody, CreateCardBody } from './schemas.js';
import { readSpend } from './spending.js';
import {
  type CardRow,
  cardReferenceTaken,
  findCard,
  insertCardIfUnique,
  insertLimitChange,
  limitChanges,
  listCardRows,
  recordNumberRead,
  updateCard,
} from './store.js';

export type { CardRow };
export type CardInput = Static<typeof CreateCardBody>['card'];
export type LimitsInput = Static<typeof CardLimitsBody>['limits'];

/** Who did it, as the audit log and the limit history name them. */
export function actorName(actor: Actor): string {
  switch (actor.kind) {
    case 'app':
      return `app:${actor.appId}`;
    case 'operator':
      return 'operator';
    case 'payer':
      return `payer:${actor.page}`;
    case 'system':
      return `system:${actor.job}`;
    case 'person':
      return `person:${actor.email}`;
  }
}

/**
 * Issues a JCB card to an approved user: a fresh Luhn-valid number in the program's range, never issued before
 * (a keyed fingerprint is unique), kept only sealed with its CVV; valid to the end of the month of issue
 * CARD_VALID_YEARS on. Its first limits are the first entry of its limit history.
 */
export async function issueCard(ctx: Context, input: CardInput): Promise<CardReply> {
  const user = await findUserByUserId(ctx, input.user_id);
  if (!user) throw new AppError(ISSUING_ERRORS.cardUserNotFound);
  if (user.verification_status !== 'approved') {
    throw new AppError(
      ISSUING_ERRORS.cardUserNotApproved,
      `Cards are issued only to users whose identity is approved; this user is ${user.verification_status}.`,
    );
  }
  const limits = readLimits(input.limits ?? [], input.settlement_currency, 'card.limits');
  const now = ctx.clock.now().getTime();
  const today = localTime(now, ctx.merchant.timezone);
  return inTransaction(
    ctx,
    async (tx) => {
      for (let attempt = 0; ; attempt += 1) {
        const number = newCardNumber(tx.ids);
        const row: CardRow = {
          id: ctx.ids.uuid(),
          merchant_id: tx.merchant.id,
          user_id: user.id,
          reference_id: input.reference_id,
          title: input.title,
          type: input.type ?? DEFAULT_CARD_TYPE,
          settlement_currency: input.settlement_currency,
          number_sealed: tx.secrets.encrypt(number),
          cvv_sealed: tx.secrets.encrypt(newCvv(tx.ids)),
          number_fingerprint: tx.secrets.fingerprint('issued card number', number),
          first6: number.slice(0, 6),
          last4: number.slice(-4),
          exp_month: today.month,
          exp_year: today.year + CARD_VALID_YEARS,
          status: 'Active',
          limits: JSON.stringify(limits),
          app_id: tx.actor.kind === 'app' ? tx.actor.appId : null,
          created_at: now,
          updated_at: now,
        };
        if (await insertCardIfUnique(tx.db, row)) {
          await insertLimitChange(tx.db, {
            id: ctx.ids.uuid(),
            merchant_id: tx.merchant.id,
            card_id: row.id,
            limits: row.limits,
            changed_by: actorName(tx.actor),
            created_at: now,
          });
          const card = await view(tx, row);
          await emitCardEvent(tx, 'card.created', card, row.app_id);
          return card;
        }
        if (await cardReferenceTaken(tx.db, tx.merchant.id, input.reference_id))
          throw new AppError(ISSUING_ERRORS.cardReferenceUsed);
        // A number drawn twice (one in a hundred million per card issued): draw again.
        if (attempt >= 5) throw new Error('could not draw an unused card number');
      }
    },
    { completesRequest: true },
  );
}

export async function readCard(ctx: Context, id: string): Promise<CardReply> {
  return view(ctx, await requireCard(ctx, id));
}

export async function listCards(
  ctx: Context,
  page: { offset: number; limit: number; user_id?: string | undefined },
): Promise<{ cards: CardReply[]; total: number }> {
  // A user id is a uuid: any other value names no user, and has no cards.
  if (page.user_id !== undefined && !isUuid(page.user_id)) return { cards: [], total: 0 };
  const { rows, total } = await listCardRows(ctx.db, ctx.merchant.id, {
    offset: page.offset,
    limit: page.limit,
    ...(page.user_id !== undefined && { userId: page.user_id }),
  });
  const cards: CardReply[] = [];
  for (const row of rows) cards.push(await view(ctx, row));
  return { cards, total };
}

/** The full number and CVV: the one place they leave the platform, each time recorded with who asked. */
export async function revealCardNumber(
  ctx: Context,
  id: string,
): Promise<{ card: CardRow; number: string; cvv: string }> {
  return inTransaction(ctx, async (tx) => {
    const card = await requireCard(tx, id);
    await recordNumberRead(tx.db, {
      id: ctx.ids.uuid(),
      merchant_id: tx.merchant.id,
      card_id: card.id,
      read_by: actorName(tx.actor),
      request_id: tx.requestId,
      created_at: tx.clock.now().getTime(),
    });
    return { card, number: tx.secrets.decrypt(card.number_sealed), cvv: tx.secrets.decrypt(card.cvv_sealed) };
  });
}

const MOVES = {
  lock: { from: ['Active'], to: 'Locked', event: 'card.locked' },
  unlock: { from: ['Locked'], to: 'Active', event: 'card.unlocked' },
  terminate: { from: ['Active', 'Locked'], to: 'Terminated', event: 'card.terminated' },
} as const satisfies Record<string, { from: readonly string[]; to: string; event: keyof typeof CARD_EVENTS }>;

/**
 * Locks, unlocks or terminates a card. Asking for the state it is in already changes nothing (and sends nothing);
 * a terminated card never changes again.
 */
export async function moveCard(ctx: Context, id: string, move: keyof typeof MOVES): Promise<CardReply> {
  return inTransaction(
    ctx,
    async (tx) => {
      const card = await requireCard(tx, id, true);
      const { from, to, event } = MOVES[move];
      if (card.status === to) return view(tx, card);
      if (!(from as readonly string[]).includes(card.status)) throw new AppError(ISSUING_ERRORS.cardTerminated);
      const moved = await updateCard(tx.db, tx.merchant.id, card.id, {
        status: to,
        updated_at: tx.clock.now().getTime(),
      });
      const shown = await view(tx, moved);
      await emitCardEvent(tx, event, shown, moved.app_id);
      return shown;
    },
    { completesRequest: true },
  );
}

/** Replaces a card's limits (all of them: a period left out has no limit any more), kept in its limit history. */
export async function setCardLimits(ctx: Context, id: string, input: LimitsInput): Promise<CardReply> {
  return inTransaction(
    ctx,
    async (tx) => {
      const card = await requireCard(tx, id, true);
      if (card.status === 'Terminated') throw new AppError(ISSUING_ERRORS.cardTerminated);
      const limits = JSON.stringify(readLimits(input, card.settlement_currency, 'limits'));
      const now = tx.clock.now().getTime();
      const updated = await updateCard(tx.db, tx.merchant.id, card.id, { limits, updated_at: now });
      await insertLimitChange(tx.db, {
        id: ctx.ids.uuid(),
        merchant_id: tx.merchant.id,
        card_id: card.id,
        limits,
        changed_by: actorName(tx.actor),
        created_at: now,
      });
      const shown = await view(tx, updated);
      await emitCardEvent(tx, 'card.limits_updated', shown, updated.app_id);
      return shown;
    },
    { completesRequest: true },
  );
}

export async function limitHistory(
  ctx: Context,
  id: string,
): Promise<{ card: CardRow; changes: Array<{ limits: CardLimit[]; changed_by: string; created_at: number }> }> {
  const card = await requireCard(ctx, id);
  const changes = await limitChanges(ctx.db, ctx.merchant.id, card.id);
  return {
    card,
    changes: changes.map((change) => ({
      limits: parseLimits(change.limits),
      changed_by: change.changed_by,
      created_at: change.created_at,
    })),
  };
}

/** The merchant's card so named; another merchant's is not found. */
export async function requireCard(ctx: Context, id: string, lock = false): Promise<CardRow> {
  const card = isUuid(id) ? await findCard(ctx.db, ctx.merchant.id, id, lock) : undefined;
  if (!card) throw new AppError(ISSUING_ERRORS.cardNotFound);
  return card;
}

/** The card as replies show it, with what its current limit periods have used (on the business clock, local date). */
export async function view(ctx: Context, row: CardRow): Promise<CardReply> {
  const today = localDate(ctx.clock.now().getTime(), ctx.merchant.timezone);
  return presentCard(row, {
    businessName: ctx.merchant.name,
    limits: parseLimits(row.limits),
    spent: await readSpend(ctx.db, row.id, today),
  });
}
