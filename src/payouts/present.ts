import type { Static } from 'typebox';
import { exponentOf, formatAmount } from '../platform/money/money.js';
import type { PayeeSchema, PayoutSchema, ScheduleStatus, TransferMethod, TransferStatus } from './schemas.js';
import type { PayeeRow, PayoutRow } from './store.js';

export type PayeeReply = Static<typeof PayeeSchema>;
export type PayoutReply = Static<typeof PayoutSchema>;

export function presentPayee(row: PayeeRow): PayeeReply {
  return {
    id: row.id,
    type: row.type as PayeeReply['type'],
    nickname: row.nickname,
    email: row.email,
    phone_country_code: row.phone_country_code,
    phone_number: row.phone_number,
    payout_account: {
      country: row.country,
      currency: row.currency,
      transfer_method: row.transfer_method as TransferMethod,
      hk_fps: {
        bank_account:
          row.account_number === null
            ? null
            : { bank_code: row.bank_code!, account_name: row.account_name!, account_number: row.account_number },
        email: row.fps_email,
        mobile: row.fps_mobile,
        fps_id: row.fps_id,
      },
    },
    created_at: new Date(row.created_at).toISOString(),
  };
}

/** The payout request of operation 9's reply, and of every callback about it. */
export function presentPayout(row: PayoutRow): PayoutReply {
  return {
    id: row.id,
    amount: formatAmount(row.amount, exponentOf(row.currency)),
    currency: row.currency,
    transfer_status: row.transfer_status as TransferStatus,
    schedule_status: row.schedule_status as ScheduleStatus,
    created_at: new Date(row.created_at).toISOString(),
    payee_id: row.payee_id,
    reference_id: row.reference_id,
    remark: row.remark,
    callback_url: row.callback_url,
    schedule_at: row.schedule_at === null ? null : formatScheduleAt(row.schedule_at),
    status_reason: row.status_reason,
    decided_by: row.decided_by,
    updated_at: new Date(row.updated_at).toISOString(),
  };
}

/** YYYY-MM-DDTHH:mm:ssZ, the form operation 9 takes. */
export const formatScheduleAt = (at: number): string => new Date(at).toISOString().replace(/\.\d{3}Z$/, 'Z');
