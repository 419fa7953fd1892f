/**
 * The card acquirer, as the platform sees it: every operation is named by our own reference (the transaction
 * uuid, or `<uuid>:void` for a void), so that it can be looked up after a crash. A real connector implements
 * the same interface; the sandbox implements it from magic card numbers.
 */
export interface CardDetails {
  number: string;
  expMonth: number;
  expYear: number;
  cvv: string | undefined;
  holderName: string | undefined;
}

export type AcquirerStatus = 'approved' | 'declined' | 'failed' | 'challenge';

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
  /** For `challenge`: where the cardholder completes 3-D Secure. */
  challengeUrl?: string;
}

export type ChallengeOutcome = 'passed' | 'failed' | 'abandoned';

export interface MoneyOperation {
  reference: string;
  merchantId: string;
  amount: number;
  currency: string;
}

export interface CardAcquirer {
  readonly name: string;
  readonly type: string;
  /** Authorises, and with `capture` also captures (a sale). */
  authorize(request: MoneyOperation & { capture: boolean; card: CardDetails }): Promise<AcquirerResult>;
  /** The cardholder passed or failed the challenge of a pending authorisation, or abandoned it. */
  completeChallenge(reference: string, outcome: ChallengeOutcome): Promise<AcquirerResult>;
  capture(request: MoneyOperation & { originalReference: string }): Promise<AcquirerResult>;
  void(request: MoneyOperation & { originalReference: string }): Promise<AcquirerResult>;
  refund(request: MoneyOperation & { originalReference: string }): Promise<AcquirerResult>;
  /**
   * What became of an operation the platform sent but never heard back about. If it never arrived, it is
   * cancelled at the acquirer, so that it is refused should it arrive late: after this answer, nothing about
   * the operation can change any more.
   */
  resolve(operation: MoneyOperation & { kind: 'authorize' | 'capture' | 'void' | 'refund' }): Promise<AcquirerResult>;
}

/** Everything outside the platform, passed in through the context. */
export interface Rails {
  /** Absent in live mode until a real connector is configured: card operations are then refused. */
  acquirer: CardAcquirer | undefined;
}
