import type { Static } from 'typebox';
import { inTransaction, type Context } from '../context/context.js';
import { AppError } from '../platform/errors.js';
import { isUuid, newId } from '../platform/ids.js';
import { blankAsAbsent } from '../platform/input.js';
import { findTokenById, lockToken, type TokenRow } from '../payment-tokens/store.js';
import type { CreateCustomerBody, EditCustomerBody } from './schemas.js';
import {
  findCustomerByReference,
  lockCustomer,
  readCustomerById,
  updateCustomerRow,
  upsertCustomerByReference,
  type CustomerPatch,
  type CustomerRow,
} from './store.js';
import { CUSTOMER_ERRORS } from './errors.js';

export type CustomerInput = Static<typeof CreateCustomerBody>['customer'];

/** A customer with its default payment token, as replies show it. */
export interface CustomerView {
  row: CustomerRow;
  defaultToken: TokenRow | undefined;
}
export type CustomerEdit = Static<typeof EditCustomerBody>;

/** Creates a customer, or updates the profile of the one with the same reference number. */
export async function createOrUpdateCustomer(ctx: Context, input: CustomerInput): Promise<CustomerView> {
  return inTransaction(ctx, async (tx) => {
    // Locked before the token it may make the default (customer, then token: as deleting a token locks them).
    const existing = async () => (await findCustomerByReference(tx.db, tx.merchant.id, input.reference_number, true))?.id;
    const patch = await profilePatch(tx, existing, input);
    return viewOf(tx, await upsertCustomerByReference(
      tx.db,
      {
        id: newId(),
        merchant_id: tx.merchant.id,
        reference_number: input.reference_number,
        name: input.name,
        phone: input.phone,
        created_at: tx.clock.now().getTime(),
      },
      patch,
    ));
  }, { completesRequest: true });
}

export async function editCustomer(ctx: Context, id: string, input: CustomerEdit): Promise<CustomerView> {
  return inTransaction(ctx, async (tx) => {
    const existing = isUuid(id) ? await lockCustomer(tx.db, tx.merchant.id, id) : undefined;
    if (!existing) throw new AppError(CUSTOMER_ERRORS.customerNotFound);
    if (input.reference_number !== undefined && input.reference_number !== existing.reference_number) {
      throw new AppError(CUSTOMER_ERRORS.customerReferenceImmutable);
    }
    const patch = await profilePatch(tx, async () => existing.id, input);
    return viewOf(tx, await updateCustomerRow(tx.db, tx.merchant.id, existing.id, patch, tx.clock.now().getTime()));
  }, { completesRequest: true });
}

export async function readCustomer(ctx: Context, id: string): Promise<CustomerView> {
  return viewOf(ctx, await getCustomer(ctx, id));
}

async function viewOf(ctx: Context, row: CustomerRow): Promise<CustomerView> {
  const id = row.default_payment_token_id;
  const token = id === null ? undefined : await findTokenById(ctx.db, ctx.merchant.id, id);
  return { row, defaultToken: token && token.deleted_at === null && token.state === 'success' ? token : undefined };
}

export async function getCustomer(ctx: Context, id: string): Promise<CustomerRow> {
  const row = isUuid(id) ? await readCustomerById(ctx, { merchantId: ctx.merchant.id, id }) : undefined;
  if (!row) throw new AppError(CUSTOMER_ERRORS.customerNotFound);
  return row;
}

/** Sent fields only: an omitted optional field keeps its value, `null` clears it. */
async function profilePatch(ctx: Context, customerId: () => Promise<string | undefined>, input: CustomerEdit): Promise<CustomerPatch> {
  const patch: CustomerPatch = { name: input.name, phone: input.phone };
  if (input.email !== undefined) patch.email = input.email;
  if (input.dial_code !== undefined) patch.dial_code = input.dial_code;
  if (input.company_name !== undefined) patch.company_name = input.company_name;
  if (input.default_payment_method !== undefined) patch.default_payment_method = input.default_payment_method;
  const token = blankAsAbsent(input.default_payment_token);
  if (token === null) patch.default_payment_token_id = null;
  else if (token !== undefined) patch.default_payment_token_id = await usableTokenId(ctx, customerId, token);
  return patch;
}

/** The id of a successfully bound (not deleted) token of this customer, or a refusal. */
async function usableTokenId(ctx: Context, customerId: () => Promise<string | undefined>, token: string): Promise<string> {
  const owner = await customerId();
  // Locked, so that a concurrent delete cannot leave the default naming a deleted token.
  const row = owner === undefined ? undefined : await lockToken(ctx.db, ctx.merchant.id, token, owner);
  if (!row || row.state !== 'success') {
    throw new AppError(CUSTOMER_ERRORS.paymentTokenNotUsable, `default_payment_token ${JSON.stringify(token)} does not name a successfully bound payment token of this customer.`);
  }
  return row.id;
}
