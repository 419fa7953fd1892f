import type { Static } from 'typebox';
import type { CustomerView } from './customers.js';
import type { CustomerSchema } from './schemas.js';

export type CustomerReply = Static<typeof CustomerSchema>;

/** Optional fields without a value are left out, except `dial_code`, which is always there (`""` when unknown). */
export function presentCustomer({ row, defaultToken }: CustomerView): CustomerReply {
  const reply: CustomerReply = {
    uuid: row.id,
    reference_number: row.reference_number,
    name: row.name,
    phone: row.phone,
    dial_code: row.dial_code ?? '',
  };
  if (row.email !== null) reply.email = row.email;
  if (row.company_name !== null) reply.company_name = row.company_name;
  if (row.default_payment_method !== null)
    reply.default_payment_method = row.default_payment_method as CustomerReply['default_payment_method'];
  if (defaultToken) reply.default_payment_token = defaultToken;
  return reply;
}
