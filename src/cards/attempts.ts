import type { Db } from '../platform/database/database.js';

/**
 * What a page's card attempts are counted against: an order (its payment page, whichever link), a binding link.
 * Named by the capability that counts: `{ kind: 'order', id }` is stored as `order:<id>`.
 */
export interface AttemptSubject {
  kind: string;
  id: string;
}

const keyOf = (subject: AttemptSubject) => `${subject.kind}:${subject.id}`;

/**
 * Takes one card attempt, unless `limit` attempts that did not pay (or save the card) are counted already. Taken
 * before the card is tried, in one statement, so that payers sending many cards at once cannot pass the cap.
 */
export async function takeCardAttempt(
  db: Db,
  merchantId: string,
  subject: AttemptSubject,
  limit: number,
): Promise<boolean> {
  const result = await db
    .insertInto('card_attempts')
    .values({ subject: keyOf(subject), merchant_id: merchantId, declines: 1 })
    .onConflict((oc) =>
      oc
        .column('subject')
        .doUpdateSet((eb) => ({ declines: eb('card_attempts.declines', '+', 1) }))
        .where('card_attempts.declines', '<', limit),
    )
    .executeTakeFirst();
  return (result.numInsertedOrUpdatedRows ?? 0n) === 1n;
}

/** Gives back an attempt that paid (or saved the card). */
export async function returnCardAttempt(db: Db, merchantId: string, subject: AttemptSubject): Promise<void> {
  await db
    .updateTable('card_attempts')
    .set((eb) => ({ declines: eb('declines', '-', 1) }))
    .where('subject', '=', keyOf(subject))
    .where('merchant_id', '=', merchantId)
    .where('declines', '>', 0)
    .execute();
}

/** The attempts counted now (declined, or being tried). */
export async function cardAttempts(db: Db, merchantId: string, subject: AttemptSubject): Promise<number> {
  const row = await db
    .selectFrom('card_attempts')
    .select('declines')
    .where('subject', '=', keyOf(subject))
    .where('merchant_id', '=', merchantId)
    .executeTakeFirst();
  return row?.declines ?? 0;
}
