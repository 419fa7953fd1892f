import type { CardAcquirer, Rails } from './acquirer.js';
import type { BankTransfer, BankTransferStatus, PayoutBank } from './bank.js';
import type { RailFaults } from './rail-faults.js';

/** The words of the response codes a card-payment rule may decline with. */
const RESPONSE_MESSAGES: Readonly<Record<string, string>> = {
  '05': 'Do not honour',
  '12': 'Invalid transaction',
  '14': 'Invalid card number',
  '41': 'Lost card',
  '43': 'Stolen card',
  '51': 'Insufficient funds',
  '54': 'Expired card',
  '57': 'Transaction not permitted to cardholder',
  '61': 'Exceeds withdrawal amount limit',
  '65': 'Exceeds withdrawal frequency limit',
  '91': 'Issuer unavailable',
  '96': 'System malfunction',
  N7: 'Incorrect CVV',
};

/**
 * The rails with the merchants' fault rules laid over them: a card payment declined with the rule's code, or left
 * unanswered (as a timeout: the acquirer never sees it, and recovery finds it cancelled); a payout's transfer
 * rejected by the bank, or paid and then returned. Everything else goes to the rails as it is.
 */
export function withRailFaults(rails: Rails, faults: RailFaults): Rails {
  return {
    ...rails,
    faults,
    acquirer: rails.acquirer && faultyAcquirer(rails.acquirer, faults),
    bank: rails.bank && faultyBank(rails.bank, faults),
  };
}

function faultyAcquirer(acquirer: CardAcquirer, faults: RailFaults): CardAcquirer {
  return Object.assign(Object.create(acquirer) as CardAcquirer, {
    async authorize(request: Parameters<CardAcquirer['authorize']>[0]) {
      // A payment, not the check of a card being bound as a token.
      const fault = request.verification ? undefined : await faults.take(request.merchantId, 'card-payment');
      if (fault?.kind === 'acquirer_timeout')
        throw new Error(`the acquirer did not answer (sandbox fault rule ${fault.ruleId})`);
      if (fault?.kind === 'decline')
        return {
          status: 'declined' as const,
          responseCode: fault.code,
          responseMessage: RESPONSE_MESSAGES[fault.code] ?? 'Declined',
          rrn: request.reference.replace(/-/g, '').slice(0, 12),
        };
      return acquirer.authorize(request);
    },
  });
}

const REJECTED = 'The receiving bank rejected the transfer (sandbox fault rule).';
const RETURNED = 'The receiving bank returned the payment after paying it (sandbox fault rule).';

function faultyBank(bank: PayoutBank, faults: RailFaults): PayoutBank {
  return {
    name: bank.name,
    async send(transfer: BankTransfer) {
      // Sent again under the same reference (recovery), a transfer meets the fate it met the first time.
      const fate = await faults.transferFate(transfer.merchantId, transfer.reference, true);
      if (fate === 'reject') return { status: 'Terminated' as const, reason: REJECTED };
      return bank.send(transfer);
    },
    async next(transfer: BankTransfer, status: BankTransferStatus) {
      if ((await faults.transferFate(transfer.merchantId, transfer.reference, false)) === 'return') {
        if (status === 'Processing Transfer') return { status: 'Settled', reason: null, afterMs: 30 * 60_000 };
        if (status === 'Settled') return { status: 'Reversed', reason: RETURNED, afterMs: 24 * 60 * 60_000 };
        if (status === 'Reversed') return { status: 'Refunded', reason: RETURNED, afterMs: 60 * 60_000 };
        return null;
      }
      return bank.next(transfer, status);
    },
  };
}
