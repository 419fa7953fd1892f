import type { CheckedCard } from '../cards/card.js';
import { AppError } from '../platform/errors.js';
import type { PayoutBank } from './bank.js';
import { RAIL_ERRORS } from './errors.js';
import type { IdentityVerifier } from './identity.js';
import type { RailFaults } from './rail-faults.js';

/**
 * The card acquirer, as the platform sees it: every operation is named by our own reference (the transaction
 * uuid, or `<uuid>:void` for a void), so that it can be looked up after a crash. A real connector implements
 * the same interface; the sandbox implements it from magic card numbers.
 */
/**
 * A card the acquirer keeps from an earlier verification (a payment token), charged without the cardholder's details.
 */
export interface StoredCard {
  /** The reference of the operation that verified (and stored) the card. */
  storedReference: string;
  /** Cardholder-initiated (the payer is there) or merchant-initiated (a subscription, an instalment). */
  entry: 'cit' | 'mit';
}

export type AcquirerStatus = 'approved' | 'declined' | 'failed' | 'awaiting_payer';

/** The wallets taken through the acquirer: the payer pays in the wallet's app, later. */
export const WALLET_METHODS = ['alipay', 'wechatpay', 'fps'] as const;
export type WalletMethod = (typeof WALLET_METHODS)[number];
/** The currencies each wallet settles in Hong Kong: FPS moves HKD and CNY only. */
export const WALLET_CURRENCIES: Record<WalletMethod, readonly string[]> = {
  alipay: ['HKD', 'CNY', 'USD'],
  wechatpay: ['HKD', 'CNY'],
  fps: ['HKD', 'CNY'],
};

/** How pages and receipts name each wallet to people. */
export const WALLET_NAMES: Record<WalletMethod, string> = { alipay: 'Alipay', wechatpay: 'WeChat Pay', fps: 'FPS' };

/** The wallets that take auto-debit agreements (payment tokens). */
export type AutoDebitWallet = 'alipay' | 'wechatpay';

/** What the payer must do before an `awaiting_payer` payment completes. */
export type PayerAction = { kind: '3ds'; url: string } | { kind: 'wallet'; qrCode?: string; redirectUrl?: string };

export interface AcquirerResult {
  status: AcquirerStatus;
  /** ISO 8583-style response code: 00 approved, 05 do not honour, 51 insufficient funds, 54 expired, 96 fault. */
  responseCode: string;
  responseMessage: string;
  authCode?: string;
  /** Retrieval reference number. */
  rrn: string;
  /** For `failed`: trying again may succeed (nothing was charged). */
  retryable?: boolean;
  /** For `awaiting_payer`: the 3-D Secure challenge to pass, or the wallet payment to make. */
  payerAction?: PayerAction;
}

/** How the payer's part ended: done (3-D Secure passed, wallet paid), refused or failed, or never done in time. */
export type PayerOutcome = 'passed' | 'failed' | 'abandoned';

export interface MoneyOperation {
  reference: string;
  merchantId: string;
  amount: number;
  currency: string;
}

export interface CardAcquirer {
  readonly name: string;
  readonly type: string;
  /**
   * Authorises, and with `capture` also captures (a sale). With `verification`, the authorisation checks a card
   * to be stored (binding a payment token): the issuer then asks for 3-D Secure unless it is frictionless. A
   * stored card is charged without a new challenge.
   */
  authorize(
    request: MoneyOperation & { capture: boolean; card: CheckedCard | StoredCard; verification?: boolean },
  ): Promise<AcquirerResult>;
  /** A wallet payment (always a sale): it awaits the payer, who pays in the wallet's app. */
  startWalletPayment(request: MoneyOperation & { method: WalletMethod }): Promise<AcquirerResult>;
  /**
   * An auto-debit agreement with the payer's wallet (a payment token): it awaits the payer, who allows it in the
   * wallet's app; later sales name it as a stored card (`storedReference`) and need no payer.
   */
  startWalletAgreement(request: {
    reference: string;
    merchantId: string;
    method: AutoDebitWallet;
  }): Promise<AcquirerResult>;
  /** The payer finished (or failed, or abandoned) what an `awaiting_payer` payment waits for. */
  completePayerAction(reference: string, outcome: PayerOutcome): Promise<AcquirerResult>;
  capture(request: MoneyOperation & { originalReference: string }): Promise<AcquirerResult>;
  void(request: MoneyOperation & { originalReference: string }): Promise<AcquirerResult>;
  refund(request: MoneyOperation & { originalReference: string }): Promise<AcquirerResult>;
  /**
   * What became of an operation the platform sent but never heard back about. If it never arrived, it is
   * cancelled at the acquirer, so that it is refused should it arrive late: after this answer, nothing about
   * the operation can change any more.
   */
  resolve(operation: MoneyOperation & { kind: 'authorize' | 'capture' | 'void' | 'refund' }): Promise<AcquirerResult>;
  /**
   * A simulation's own page where the payer of a waiting wallet payment acts (the sandbox's stand-in for the
   * wallet's app), so that a payer without a phone can finish; a real acquirer has none.
   */
  simulatedPayerPage?(reference: string): Promise<string | undefined>;
}

/** Everything outside the platform, passed in through the context. */
export interface Rails {
  /** Absent in live mode until a real connector is configured: card operations are then refused. */
  acquirer: CardAcquirer | undefined;
  /** The identity check of issuing's users; absent in live mode until a real provider is configured. */
  identity: IdentityVerifier | undefined;
  /** The bank that carries payouts; absent in live mode until a real connector is configured. */
  bank: PayoutBank | undefined;
  /** Sandbox only: the merchants' fault rules on the rails (the lab), for a rail the platform simulates itself. */
  faults?: RailFaults;
}

/** The acquirer, or the refusal a card operation gets when the platform has none. */
export function acquirerOf(rails: Rails): CardAcquirer {
  if (!rails.acquirer) throw new AppError(RAIL_ERRORS.acquirerUnavailable);
  return rails.acquirer;
}
