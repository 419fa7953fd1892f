import { defineErrors } from '../platform/errors.js';

/** The dashboard's people, sign-in and roles (docs/dashboard.md). */
export const PEOPLE_ERRORS = defineErrors({
  personNotFound: { code: '910101', status: 404, message: 'Person not found.' },
  emailTaken: { code: '910102', status: 409, message: 'Someone already signs in with this email address.' },
  personInvalid: { code: '910103', status: 400, message: 'The person is invalid.' },
  signInRefused: { code: '910104', status: 401, message: 'The email address or the password is wrong.' },
  signInLimited: {
    code: '910105',
    status: 429,
    message: 'Too many failed sign-ins from this address or for this account: try again later.',
  },
  lastOwner: {
    code: '910107',
    status: 409,
    message: 'A merchant keeps at least one owner: make someone else owner first.',
  },
});
