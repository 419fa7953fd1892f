import Type from 'typebox';
import { Nullable, StringEnum } from '../platform/schema.js';

export const DOCUMENT_TYPES = ['PASSPORT', 'DRIVER_LICENSE', 'ID_CARD'] as const;
export const VERIFICATION_STATUSES = ['pending', 'approved', 'rejected'] as const;

const fields = {
  reference_id: Type.String({
    minLength: 1,
    maxLength: 100,
    description: "The merchant's own id for the user; unique per merchant.",
  }),
  calling_code: Type.String({ pattern: '^[0-9]{1,3}$', description: '1 to 3 digits, such as 852' }),
  phone_number: Type.String({
    pattern: '^[0-9]{1,11}$',
    description: '1 to 11 digits; with the calling code, unique per merchant',
  }),
  document_type: StringEnum(DOCUMENT_TYPES),
  document_number: Type.String({ minLength: 1, maxLength: 64 }),
  first_name: Type.Optional(
    Nullable(Type.String({ maxLength: 100, description: 'At least one of first_name and last_name.' })),
  ),
  last_name: Type.Optional(
    Nullable(Type.String({ maxLength: 100, description: 'At least one of first_name and last_name.' })),
  ),
  date_of_birth: Type.String({
    pattern: '^[0-9]{4}-[0-9]{2}-[0-9]{2}$',
    description: 'YYYY-MM-DD, a real date in the past',
  }),
  issuing_country: Type.String({ pattern: '^[A-Za-z]{3}$', description: 'ISO 3166 alpha-3, such as HKG' }),
};

export const CreateUserBody = Type.Object({ user: Type.Object(fields) });

/** Every field optional: what is sent replaces the stored value (first_name or last_name null clears it). */
export const UpdateUserBody = Type.Object({ user: Type.Partial(Type.Object(fields)) });

export const UserParams = Type.Object({
  reference_id: Type.String({ minLength: 1, maxLength: 100, description: "The user's reference_id, or its user_id." }),
});

export const SandboxUserParams = Type.Object({ user_id: Type.String({ maxLength: 64 }) });
export const RejectUserBody = Type.Object({
  reason: Type.Optional(
    Type.String({ minLength: 1, maxLength: 255, description: 'Why the identity check failed; a default when absent.' }),
  ),
});

export const CreatedUserData = Type.Object({ user_id: Type.String() });

export const UserSchema = Type.Object({
  id: Type.String(),
  user_id: Type.String({ description: 'The same as id.' }),
  reference_id: Type.String(),
  calling_code: Type.String(),
  phone_number: Type.String(),
  document_type: StringEnum(DOCUMENT_TYPES),
  document_number: Type.String(),
  first_name: Nullable(Type.String()),
  last_name: Nullable(Type.String()),
  date_of_birth: Type.String(),
  issuing_country: Type.String(),
  verification_status: StringEnum(VERIFICATION_STATUSES),
  rejection_reason: Nullable(Type.String()),
  p_created_at: Type.String({ description: 'ISO 8601 UTC with milliseconds.' }),
});

export const UserData = Type.Object({ user: UserSchema });
