import type { Static } from 'typebox';
import type { UserSchema } from './schemas.js';

/** The user of the API reference's examples (/docs); test/http/docs-page.test.ts checks them against the schemas. */
export const EXAMPLE_USER_ID = '0f6b3a52-8c1d-4e7a-9b2f-5d4c3b2a1908';

export const EXAMPLE_NEW_USER = {
  reference_id: 'STAFF-0042',
  calling_code: '852',
  phone_number: '61234567',
  document_type: 'ID_CARD',
  document_number: 'A1234563',
  first_name: 'Tai Man',
  last_name: 'Chan',
  date_of_birth: '1990-04-01',
  issuing_country: 'HKG',
} as const;

export const EXAMPLE_USER: Static<typeof UserSchema> = {
  id: EXAMPLE_USER_ID,
  user_id: EXAMPLE_USER_ID,
  ...EXAMPLE_NEW_USER,
  verification_status: 'approved',
  rejection_reason: null,
  p_created_at: '2026-12-01T02:00:00.000Z',
};
