import type { Static } from 'typebox';
import { type Context, inTransaction } from '../context/context.js';
import { AppError } from '../platform/errors.js';
import { isUuid } from '../platform/ids.js';
import { blankAsAbsent } from '../platform/input.js';
import type { DefaultTokens, PaymentTokenReply } from './default-token.js';
import { CUSTOMER_ERRORS } from './errors.js';
import type { CreateCustomerBody, EditCustomerBody } from './schemas.js';
import {
  type CustomerPatch,
  type CustomerRow,
  findCustomerByReference,
  lockCustomer,
  readCustomerById,
  updateCustomerRow,
  upsertCustomerByReference,
} from './store.js';

export type { CustomerRow };

export type CustomerInput = Static<typeof CreateCustomerBody>['customer'];
export type CustomerEdit = Static<typeof EditCustomerBody>;

/** A customer with its default payment token, as replies show it. */
export interface CustomerView {
  row: CustomerRow;
  defaultToken: PaymentTokenReply | undefined;
}

/** Creates a customer, or updates the profile of the one with the same reference number. */
export async function createOrUpdateCustomer(
  ctx: Context,
  tokens: DefaultTokens,
  input: CustomerInput,
): Promise<CustomerView> {
  return inTransaction(
    ctx,
    async (tx) => {
      // Locked before the token it may make the default (customer, then token: as deleting a token locks them).
      const existing = async () =>
        (await findCustomerByReference(tx.db, tx.merchant.id, input.reference_number, true))?.id;
      const patch = await profilePatch(tx, tokens, existing, input);
      return viewOf(
        tx,
        tokens,
        await upsertCustomerByReference(
          tx.db,
          {
            id: ctx.ids.uuid(),
            merchant_id: tx.merchant.id,
            reference_number: input.reference_number,
            name: input.name,
            phone: input.phone,
            created_at: tx.clock.now().getTime(),
          },
          patch,
        ),
      );
    },
    { completesRequest: true },
  );
}

export async function editCustomer(
  ctx: Context,
  tokens: DefaultTokens,
  id: string,
  input: CustomerEdit,
): Promise<CustomerView> {
  return inTransaction(
    ctx,
    async (tx) => {
      const existing = isUuid(id) ? await lockCustomer(tx.db, tx.merchant.id, id) : undefined;
      if (!existing) throw new AppError(CUSTOMER_ERRORS.customerNotFound);
      if (input.reference_number !== undefined && input.reference_number !== existing.reference_number) {
        throw new AppError(CUSTOMER_ERRORS.customerReferenceImmutable);
      }
      const patch = await profilePatch(tx, tokens, async () => existing.id, input);
      return viewOf(
        tx,
        tokens,
        await updateCustomerRow(tx.db, tx.merchant.id, existing.id, patch, tx.clock.now().getTime()),
      );
    },
    { completesRequest: true },
  );
}

export async function readCustomer(ctx: Context, tokens: DefaultTokens, id: string): Promise<CustomerView> {
  return viewOf(ctx, tokens, await getCustomer(ctx, id));
}

async function viewOf(ctx: Context, tokens: DefaultTokens, row: CustomerRow): Promise<CustomerView> {
  return { row, defaultToken: row.default_payment_token_id === null ? undefined : await tokens.present(ctx, row) };
}

/** The merchant's customer so named; another merchant's looks exactly like a missing one. */
export async function getCustomer(ctx: Context, id: string): Promise<CustomerRow> {
  const row = await findCustomer(ctx, id);
  if (!row) throw new AppError(CUSTOMER_ERRORS.customerNotFound);
  return row;
}

/** The merchant's customer so named, if there is one. */
export async function findCustomer(ctx: Context, id: string): Promise<CustomerRow | undefined> {
  return isUuid(id) ? readCustomerById(ctx, { merchantId: ctx.merchant.id, id }) : undefined;
}

/** The merchant's customer so named, locked until the transaction ends; another merchant's is not found. */
export async function lockCustomerOf(ctx: Context, id: string): Promise<CustomerRow> {
  const row = isUuid(id) ? await lockCustomer(ctx.db, ctx.merchant.id, id) : undefined;
  if (!row) throw new AppError(CUSTOMER_ERRORS.customerNotFound);
  return row;
}

/** Sets (or with null clears) the customer's default token, in the caller's transaction. */
export async function setDefaultToken(ctx: Context, customer: CustomerRow, tokenId: string | null): Promise<void> {
  await updateCustomerRow(
    ctx.db,
    ctx.merchant.id,
    customer.id,
    { default_payment_token_id: tokenId },
    ctx.clock.now().getTime(),
  );
}

/** Sent fields only: an omitted optional field keeps its value, `null` clears it. */
async function profilePatch(
  ctx: Context,
  tokens: DefaultTokens,
  customerId: () => Promise<string | undefined>,
  input: CustomerEdit,
): Promise<CustomerPatch> {
  const patch: CustomerPatch = { name: input.name, phone: input.phone };
  if (input.email !== undefined) patch.email = input.email;
  if (input.dial_code !== undefined) patch.dial_code = input.dial_code;
  if (input.company_name !== undefined) patch.company_name = input.company_name;
  if (input.default_payment_method !== undefined) patch.default_payment_method = input.default_payment_method;
  const token = blankAsAbsent(input.default_payment_token);
  if (token === null) {
    patch.default_payment_token_id = null;
  } else if (token !== undefined) {
    const owner = await customerId();
    if (owner === undefined) throw unusable(token);
    patch.default_payment_token_id = await tokens.claim(ctx, owner, token);
  }
  return patch;
}

export function unusable(token: string): AppError {
  return new AppError(
    CUSTOMER_ERRORS.paymentTokenNotUsable,
    `default_payment_token ${JSON.stringify(token)} does not name a successfully bound payment token of this customer.`,
  );
}
