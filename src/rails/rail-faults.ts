/** A fault a merchant's rule holds for a rail (the sandbox lab's `faults add --rail`). */
export type RailFault =
  | { ruleId: string; kind: 'decline'; code: string }
  | { ruleId: string; kind: 'acquirer_timeout' }
  | { ruleId: string; kind: 'reject' }
  | { ruleId: string; kind: 'return' };

export type FaultedRail = 'card-payment' | 'card-authorisation' | 'payout';

/**
 * Where the rails' faults come from: rules a capability keeps (the sandbox lab), given to the platform by the
 * composition root. Each is taken once, by the call it shapes.
 */
export interface RailFaults {
  take(merchantId: string, rail: FaultedRail): Promise<RailFault | undefined>;
  /**
   * The fate of a payout's transfer: the one a rule gave it before (kept, so every later call about it agrees), or,
   * asked when it is first sent, the next payout rule's, taken and kept.
   */
  transferFate(merchantId: string, reference: string, firstSend: boolean): Promise<'reject' | 'return' | undefined>;
}
