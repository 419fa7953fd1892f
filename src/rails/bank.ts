import { AppError } from '../platform/errors.js';
import { RAIL_ERRORS } from './errors.js';

/** Where a transfer stands at the bank, past its start (`Initiated` is ours: not yet sent). */
export type BankTransferStatus = 'Processing Transfer' | 'Settled' | 'Terminated' | 'Reversed' | 'Refunded';

/** A payout's transfer, as the bank sees it: our reference (one per transfer), the money and the account. */
export interface BankTransfer {
  reference: string;
  merchantId: string;
  /** Minor units of `currency`. */
  amount: number;
  currency: string;
  account: {
    transferMethod: string;
    bankCode: string | null;
    accountNumber: string | null;
    accountName: string | null;
    mobile: string | null;
    email: string | null;
    fpsId: string | null;
  };
}

/** A report the bank makes about a transfer: its new status, why (for a rejection or a return), and when. */
export interface BankReport {
  status: BankTransferStatus;
  reason: string | null;
  /** Business time after the previous report at which the bank makes this one. */
  afterMs: number;
}

/**
 * The bank that carries payouts (Hong Kong FPS). `send` hands a transfer over under our reference (sent again, the
 * same reference is the same transfer: that is how a send whose answer was lost is recovered) and answers at
 * once whether the bank took it. What the bank reports later (settled, rejected, returned) comes through `next`:
 * given where a transfer stands, the bank's next report about it, or null once it reports nothing more.
 */
export interface PayoutBank {
  readonly name: string;
  send(transfer: BankTransfer): Promise<{ status: 'Processing Transfer' } | { status: 'Terminated'; reason: string }>;
  next(transfer: BankTransfer, status: BankTransferStatus): Promise<BankReport | null>;
}

export function bankOf(rails: { bank: PayoutBank | undefined }): PayoutBank {
  if (!rails.bank) throw new AppError(RAIL_ERRORS.bankUnavailable);
  return rails.bank;
}
