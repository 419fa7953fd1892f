import { type Context, merchantContext, type PlatformContext } from '../context/context.js';
import { AppError, PLATFORM_ERRORS } from '../platform/errors.js';
import { isUuid } from '../platform/ids.js';
import { findMerchant, listMerchants, type Merchant, toMerchant } from '../platform/tenants.js';
import { CommandFailure } from './failures.js';
import { UsageError } from './output.js';

/** `--merchant` of an operator's command: not needed where the database has one merchant, as `call` needs no app. */
export const MERCHANT_OPTION = {
  type: 'string',
  value: 'MERCHANT_ID',
  description: 'the merchant; when not given, the only merchant of the database',
} as const;

/**
 * The merchant an operator's command acts for: the one `--merchant` names, refused when the database has none such
 * (`100501`, one line and exit 1, as every refusal); without it, the database's only merchant.
 */
export async function operatorMerchant(platform: PlatformContext, given: string | undefined): Promise<Merchant> {
  if (given !== undefined) {
    const merchant = isUuid(given) ? await findMerchant(platform.db, given) : undefined;
    if (!merchant) throw new AppError(PLATFORM_ERRORS.merchantNotFound, `merchant ${given} not found`);
    return merchant;
  }
  const merchants = await listMerchants(platform.db, 2);
  if (merchants.length === 1) return toMerchant(merchants[0]!);
  if (merchants.length === 0)
    throw new CommandFailure('this database has no merchant yet ("paygate merchant create" makes one)');
  throw new UsageError(
    '--merchant is required: this database has several merchants ("paygate merchant list" shows them)',
  );
}

/** The merchant's context, as the operator: what a command's verbs take. */
export async function operatorContext(
  platform: PlatformContext,
  given: string | undefined,
  label: string,
): Promise<Context> {
  return merchantContext(platform, await operatorMerchant(platform, given), { kind: 'operator' }, label);
}
