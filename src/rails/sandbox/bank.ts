import type { BankReport, BankTransfer, BankTransferStatus, PayoutBank } from '../bank.js';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

/** The business time each report of the sandbox bank takes (docs/payouts.md). */
export const SANDBOX_BANK_DELAYS = {
  settles: 30 * MINUTE,
  rejects: 30 * MINUTE,
  returns: 24 * HOUR,
  refunds: HOUR,
} as const;

/**
 * The endings of an account's identifier (its account number, mobile number or FPS id, or an email's part before
 * the `@`) that steer the sandbox bank; any other settles.
 */
export const BANK_MAGIC_ENDINGS = { rejected: '0002', returned: '0003' } as const;

export const SANDBOX_BANK_REJECTION = 'The receiving bank rejected the transfer: the account is closed.';
export const SANDBOX_BANK_RETURN = 'The receiving bank returned the payment after paying it.';

/**
 * The sandbox's bank: takes every transfer, then settles it 30 minutes of business time later; an account
 * ending in 0002 is rejected instead (Terminated), and one ending in 0003 is paid, then returned a day later
 * (Reversed) and refunded an hour after that. Decided by the account alone, so every answer is the same however
 * often it is asked.
 */
export class SandboxBank implements PayoutBank {
  readonly name = 'sandbox-bank';

  async send(): Promise<{ status: 'Processing Transfer' }> {
    return { status: 'Processing Transfer' };
  }

  async next(transfer: BankTransfer, status: BankTransferStatus): Promise<BankReport | null> {
    const path = pathOf(transfer);
    switch (status) {
      case 'Processing Transfer':
        return path === 'rejected'
          ? { status: 'Terminated', reason: SANDBOX_BANK_REJECTION, afterMs: SANDBOX_BANK_DELAYS.rejects }
          : { status: 'Settled', reason: null, afterMs: SANDBOX_BANK_DELAYS.settles };
      case 'Settled':
        return path === 'returned'
          ? { status: 'Reversed', reason: SANDBOX_BANK_RETURN, afterMs: SANDBOX_BANK_DELAYS.returns }
          : null;
      case 'Reversed':
        return { status: 'Refunded', reason: SANDBOX_BANK_RETURN, afterMs: SANDBOX_BANK_DELAYS.refunds };
      default:
        return null;
    }
  }
}

function pathOf(transfer: BankTransfer): 'settles' | 'rejected' | 'returned' {
  const { account } = transfer;
  const identifier = account.accountNumber ?? account.mobile ?? account.fpsId ?? account.email?.split('@')[0] ?? '';
  if (identifier.endsWith(BANK_MAGIC_ENDINGS.rejected)) return 'rejected';
  if (identifier.endsWith(BANK_MAGIC_ENDINGS.returned)) return 'returned';
  return 'settles';
}
