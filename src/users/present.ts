import type { Static } from 'typebox';
import type { UserSchema } from './schemas.js';
import type { UserRow } from './store.js';

export type UserReply = Static<typeof UserSchema>;

export function presentUser(row: UserRow): UserReply {
  return {
    id: row.id,
    user_id: row.id,
    reference_id: row.reference_id,
    calling_code: row.calling_code,
    phone_number: row.phone_number,
    document_type: row.document_type as UserReply['document_type'],
    document_number: row.document_number,
    first_name: row.first_name,
    last_name: row.last_name,
    date_of_birth: row.date_of_birth,
    issuing_country: row.issuing_country,
    verification_status: row.verification_status as UserReply['verification_status'],
    rejection_reason: row.rejection_reason,
    p_created_at: new Date(row.created_at).toISOString(),
  };
}
