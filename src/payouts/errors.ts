import { defineErrors } from '../platform/errors.js';

/**
 * Payees and payout requests (codes 82xxxx). 820007 is the interface's own, exactly for its condition; field rules
 * refuse with the platform's 100207, naming the field. Every refused move of a payout's schedule has its own code.
 */
export const PAYOUT_ERRORS = defineErrors({
  payeeNotFound: { code: '820001', status: 404, message: 'Payee not found.' },
  payoutNotFound: { code: '820002', status: 404, message: 'Payout request not found.' },
  payoutCurrencyMismatch: {
    code: '820003',
    status: 400,
    message: "The payout's currency is not its payee account's currency.",
  },
  payoutReferenceUsed: {
    code: '820004',
    status: 409,
    message: 'reference_id was already used for another payout request with other content.',
  },
  payeeInUse: {
    code: '820005',
    status: 409,
    message: 'The payee has a payout request in flight: it can be deleted once every payout to it has ended.',
  },
  payoutCallbackInvalid: { code: '820007', status: 400, message: 'The callback URL is invalid.' },
  payoutNotPendingApproval: {
    code: '820010',
    status: 409,
    message: 'Only a payout request pending approval can be approved or rejected.',
  },
  payoutNotCancellable: {
    code: '820011',
    status: 409,
    message: 'Only a payout request pending approval, or approved and not yet run, can be cancelled.',
  },
  payoutNotAdvanceable: {
    code: '820012',
    status: 409,
    message:
      'The payout has no next transfer state to move to: it has not run, or the bank has nothing more to report.',
  },
});
