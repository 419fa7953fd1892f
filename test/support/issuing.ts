import { randomUUID } from 'node:crypto';
import type { CardSpend, PaygateClient, UserInput } from '@paygate/client';

let counter = 0;

/** A user of its own reference, phone and document (approved by the sandbox unless its last name steers it). */
export function userInput(fields: Partial<UserInput> = {}): UserInput {
  counter += 1;
  const digits = `${process.pid % 1000}${counter}${Math.floor(Math.random() * 1000)}`.padStart(9, '0').slice(-11);
  return {
    reference_id: `STAFF-${randomUUID()}`,
    calling_code: '852',
    phone_number: digits,
    document_type: 'PASSPORT',
    document_number: `K${digits}`,
    first_name: 'Siu Ming',
    last_name: 'Wong',
    date_of_birth: '1985-10-20',
    issuing_country: 'HKG',
    ...fields,
  };
}

export const COFFEE_SHOP = {
  id: 'MID-88001',
  name: 'Blue Bottle Coffee',
  city: 'San Francisco',
  country: 'US',
  category: '5814',
};

/** A purchase with the card, in HKD unless told. */
export function spend(cardId: string, amount: string, fields: Partial<CardSpend> = {}): CardSpend {
  return { card_id: cardId, amount, currency: 'HKD', merchant: COFFEE_SHOP, ...fields };
}

/** An approved user's card (HKD unless told), with the limits given. */
export async function newCard(
  client: PaygateClient,
  fields: {
    currency?: 'HKD' | 'USD';
    limits?: Array<{ period: 'transaction' | 'daily' | 'monthly' | 'lifetime'; limit_amount: string }>;
  } = {},
) {
  const userId = await client.users.create(userInput());
  return client.cards.create({
    user_id: userId,
    reference_id: `CARD-${randomUUID()}`,
    title: 'Travel',
    settlement_currency: fields.currency ?? 'HKD',
    limits: fields.limits ?? [],
  });
}
