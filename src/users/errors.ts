import { defineErrors } from '../platform/errors.js';

/**
 * Identity-verified users (codes 3xxxxx). The first three are the interface's own, exactly as the seed gives them
 * (30014 has five digits there). Field rules refuse with the platform's 100207, naming the field.
 */
export const USER_ERRORS = defineErrors({
  userExists: {
    code: '300008',
    status: 409,
    message: 'The user already exists: a user of this merchant has this document type, number and issuing country.',
  },
  userReferenceUsed: { code: '300013', status: 409, message: 'reference_id was already used for creating a user.' },
  userPhoneUsed: {
    code: '30014',
    status: 409,
    message: 'The phone number (calling code and number) was already used for creating a user.',
  },
  userNotFound: { code: '300101', status: 404, message: 'User not found.' },
  userNotPending: {
    code: '300102',
    status: 409,
    message: 'The user is not pending verification: only a pending user can be approved or rejected.',
  },
});
