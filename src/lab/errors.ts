import { defineErrors } from '../platform/errors.js';

/** The sandbox lab's refusals (9xxxxx). */
export const LAB_ERRORS = defineErrors({
  liveMode: { code: '900101', status: 403, message: 'The sandbox lab is not available in live mode.' },
  captureNotFound: { code: '900201', status: 404, message: 'Capture not found.' },
  tapInvalid: {
    code: '900202',
    status: 400,
    message: 'The endpoint to tap must be an http or https URL, and one of at most 20.',
  },
  faultRuleNotFound: { code: '900301', status: 404, message: 'Fault rule not found.' },
  faultRuleInvalid: { code: '900302', status: 400, message: 'The fault rule is invalid.' },
  streamInvalid: { code: '900203', status: 400, message: 'The event stream cannot be opened as asked.' },
  streamsBusy: {
    code: '900204',
    status: 429,
    message: 'Ten event streams of this merchant are open: close one, or try again shortly.',
  },
  triggerUnknown: { code: '900401', status: 400, message: 'No such event kind to trigger.' },
  triggerFieldInvalid: { code: '900402', status: 400, message: 'This field does not apply to this trigger.' },
  triggerEventNotMade: {
    code: '900403',
    status: 409,
    message: 'The objects were made, but the event did not come of them (a field set kept it from happening).',
  },
  snapshotNotFound: { code: '900501', status: 404, message: 'Snapshot not found.' },
  snapshotExists: {
    code: '900502',
    status: 409,
    message: 'A snapshot with this name exists; save with force to replace it.',
  },
  snapshotsFull: {
    code: '900503',
    status: 409,
    message: 'The merchant keeps as many snapshots as it may: delete one, or replace one with force.',
  },
});
