import { type CheckedCard, maskCardNumber } from '../cards/card.js';
import type { PlatformSecrets } from '../platform/secrets.js';
import type { RowInstruction, RowRefusal } from './row-rules.js';
import type { BatchRowRecord } from './store.js';

/** What a row asks for, as kept in its record: checked, in minor units, without a card number. */
export type StoredInstruction =
  | {
      action: 'payment' | 'authorize';
      reference: string;
      customerUuid: string | null;
      amount: number;
      currency: string;
      token: string | null;
      attempt?: number;
    }
  | {
      action: 'capture' | 'refund';
      originalTransactionId: string;
      reference: string | null;
      amount: number | null;
      currency: string;
    }
  | { action: 'void'; named: 'void' | 'cancellation'; originalTransactionId: string; reference: string | null };

/** A card row's card, sealed in its record until the row has ended. */
type SealedCard = Pick<CheckedCard, 'number' | 'expMonth' | 'expYear' | 'cvv'>;

/** A row of the file as its record starts: waiting to run, or failed already by its own cells. */
export function rowRecord(
  batch: { id: string; merchant_id: string },
  checked: RowInstruction | RowRefusal,
  secrets: PlatformSecrets,
  remark: string | undefined,
  now: number,
): BatchRowRecord {
  const base: BatchRowRecord = {
    batch_id: batch.id,
    row_number: checked.row,
    merchant_id: batch.merchant_id,
    state: 'waiting',
    action: null,
    instruction: null,
    card_masked: null,
    card_sealed: null,
    remark: remark ?? null,
    order_id: null,
    transaction_id: null,
    error_column: null,
    error_reason: null,
    outcome: null,
    updated_at: now,
  };
  if ('reason' in checked)
    return {
      ...base,
      state: 'failed',
      error_column: checked.column,
      error_reason: checked.reason,
      outcome: checked.reason,
    };
  const instruction = storedInstruction(checked);
  const card =
    checked.action === 'payment' || checked.action === 'authorize'
      ? 'card' in checked.means
        ? checked.means.card
        : undefined
      : undefined;
  return {
    ...base,
    action: checked.action === 'void' ? checked.named : checked.action,
    instruction: JSON.stringify(instruction),
    ...(card && {
      card_masked: maskCardNumber(card.number),
      card_sealed: secrets.encrypt(
        JSON.stringify({
          number: card.number,
          expMonth: card.expMonth,
          expYear: card.expYear,
          cvv: card.cvv,
        } satisfies SealedCard),
      ),
    }),
  };
}

function storedInstruction(checked: RowInstruction): StoredInstruction {
  switch (checked.action) {
    case 'payment':
    case 'authorize':
      return {
        action: checked.action,
        reference: checked.reference,
        customerUuid: checked.customerUuid ?? null,
        amount: checked.amount.minor,
        currency: checked.amount.currency.code,
        token: 'token' in checked.means ? checked.means.token : null,
      };
    case 'capture':
    case 'refund':
      return {
        action: checked.action,
        originalTransactionId: checked.originalTransactionId,
        reference: checked.reference ?? null,
        amount: checked.amount?.minor ?? null,
        currency: checked.amount?.currency.code ?? '',
      };
    case 'void':
      return {
        action: 'void',
        named: checked.named,
        originalTransactionId: checked.originalTransactionId,
        reference: checked.reference ?? null,
      };
  }
}

export function instructionOf(row: BatchRowRecord): StoredInstruction {
  return JSON.parse(row.instruction!) as StoredInstruction;
}

/** The card a card row pays with, opened for the call to the acquirer only. */
export function openCard(row: BatchRowRecord, secrets: PlatformSecrets): SealedCard | undefined {
  return row.card_sealed === null ? undefined : (JSON.parse(secrets.decrypt(row.card_sealed)) as SealedCard);
}
