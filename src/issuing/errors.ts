import { defineErrors } from '../platform/errors.js';

/**
 * Issued cards and their transactions (codes 7xxxxx). Field rules refuse with the platform's 100207, naming the field.
 */
export const ISSUING_ERRORS = defineErrors({
  cardNotFound: { code: '700101', status: 404, message: 'Card not found.' },
  cardUserNotApproved: {
    code: '700102',
    status: 409,
    message: 'Cards are issued only to users whose identity is approved.',
  },
  cardReferenceUsed: { code: '700103', status: 409, message: 'reference_id was already used for another card.' },
  cardTerminated: { code: '700104', status: 409, message: 'The card is terminated: it can never change again.' },
  cardUserNotFound: { code: '700105', status: 404, message: 'card.user_id names no user of this merchant.' },
  authorizationNotFound: { code: '700201', status: 404, message: 'Authorization not found.' },
  authorizationClosed: {
    code: '700202',
    status: 409,
    message: 'The authorization is no longer open (settled, reversed or expired): nothing is left to change.',
  },
});
