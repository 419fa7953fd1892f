import type { Static } from 'typebox';
import { invalid } from '../platform/errors.js';
import type { CreatePayeeBody, TransferMethod } from './schemas.js';

export type PayeeInput = Static<typeof CreatePayeeBody>['payee'];

/** The account a payee is paid on, as stored: only the identifiers of its transfer method. */
export interface PayeeAccount {
  country: string;
  currency: string;
  transfer_method: TransferMethod;
  bank_code: string | null;
  account_name: string | null;
  account_number: string | null;
  fps_email: string | null;
  fps_mobile: string | null;
  fps_id: string | null;
}

/** The currencies Hong Kong's Faster Payment System carries. */
export const FPS_CURRENCIES = ['HKD', 'CNY'] as const;

const BANK_CODE = /^[0-9]{3}$/;
const ACCOUNT_NUMBER = /^[0-9]{6,12}$/;
/** Hong Kong mobile numbers: 8 digits, the first 4 to 9, after +852 (or 852, with or without a hyphen) or nothing. */
const HK_MOBILE = /^(?:\+?852-?)?([4-9][0-9]{7})$/;
const FPS_ID = /^[0-9]{7,9}$/;
/** One @, no spaces, a dot in the domain: what FPS registers an email proxy with. */
const EMAIL = /^[^\s@]+@[^\s@.]+(?:\.[^\s@.]+)+$/;
const PHONE_CODE = /^\+?[0-9]{1,3}$/;
const PHONE_NUMBER = /^[0-9]{4,15}$/;

/**
 * The rules of a payee (docs/payouts.md): an FPS account in Hong Kong, in HKD or CNY, with the one identifier its
 * transfer method needs, in its form; identifiers of the other methods absent (null or empty count as absent).
 */
export function readPayeeAccount(input: PayeeInput['payout_account']): PayeeAccount {
  const field = 'payee.payout_account';
  const country = input.country.toUpperCase();
  if (country !== 'HK') throw invalid(`${field}.country`, 'must be HK: every transfer method is Hong Kong FPS');
  const currency = input.currency.toUpperCase();
  if (!(FPS_CURRENCIES as readonly string[]).includes(currency))
    throw invalid(`${field}.currency`, `must be one of ${FPS_CURRENCIES.join(', ')} (what FPS carries)`);
  const fps = input.hk_fps;
  const bank = fps.bank_account ?? {};
  const given = {
    bank_account: [bank.bank_code, bank.account_name, bank.account_number].some(present),
    email: present(fps.email),
    mobile: present(fps.mobile),
    fps_id: present(fps.fps_id),
  };
  const account: PayeeAccount = {
    country,
    currency,
    transfer_method: input.transfer_method,
    bank_code: null,
    account_name: null,
    account_number: null,
    fps_email: null,
    fps_mobile: null,
    fps_id: null,
  };
  const at = `${field}.hk_fps`;
  let uses: keyof typeof given;
  switch (input.transfer_method) {
    case 'HK FPS - Account Number': {
      uses = 'bank_account';
      const code = text(bank.bank_code);
      const number = text(bank.account_number);
      const name = text(bank.account_name)?.trim();
      if (code === null || !BANK_CODE.test(code))
        throw invalid(`${at}.bank_account.bank_code`, 'must be the 3-digit bank code (such as 004)');
      if (number === null || !ACCOUNT_NUMBER.test(number))
        throw invalid(`${at}.bank_account.account_number`, 'must be 6 to 12 digits, without the bank code');
      if (!name) throw invalid(`${at}.bank_account.account_name`, 'is required: the name on the account');
      Object.assign(account, { bank_code: code, account_number: number, account_name: name });
      break;
    }
    case 'HK FPS - Mobile': {
      uses = 'mobile';
      const match = HK_MOBILE.exec(text(fps.mobile) ?? '');
      if (!match)
        throw invalid(
          `${at}.mobile`,
          'must be a Hong Kong mobile number: 8 digits, the first 4 to 9, optionally after +852',
        );
      account.fps_mobile = `+852-${match[1]}`;
      break;
    }
    case 'HK FPS - Email': {
      uses = 'email';
      const email = text(fps.email)?.trim() ?? '';
      if (!EMAIL.test(email)) throw invalid(`${at}.email`, 'must be an email address');
      account.fps_email = email;
      break;
    }
    case 'HK FPS- FPS ID': {
      uses = 'fps_id';
      const id = text(fps.fps_id);
      if (id === null || !FPS_ID.test(id)) throw invalid(`${at}.fps_id`, 'must be an FPS id of 7 to 9 digits');
      account.fps_id = id;
      break;
    }
  }
  for (const [name, isGiven] of Object.entries(given)) {
    if (isGiven && name !== uses)
      throw invalid(`${at}.${name}`, `is not used by ${input.transfer_method}: leave it out`);
  }
  return account;
}

/** The payee's own contact details: optional, in their form when given. */
export function readContact(input: PayeeInput): {
  email: string | null;
  phone_country_code: string | null;
  phone_number: string | null;
} {
  const email = text(input.email)?.trim() || null;
  if (email !== null && !EMAIL.test(email)) throw invalid('payee.email', 'must be an email address');
  const code = text(input.phone_country_code);
  if (code !== null && !PHONE_CODE.test(code))
    throw invalid('payee.phone_country_code', 'must be 1 to 3 digits, optionally after +');
  const number = text(input.phone_number);
  if (number !== null && !PHONE_NUMBER.test(number)) throw invalid('payee.phone_number', 'must be 4 to 15 digits');
  if ((code === null) !== (number === null))
    throw invalid(
      code === null ? 'payee.phone_country_code' : 'payee.phone_number',
      'goes with the other half of the phone number: give both or neither',
    );
  return { email, phone_country_code: code?.replace('+', '') ?? null, phone_number: number };
}

export function checkNickname(nickname: string): string {
  const trimmed = nickname.trim();
  if (!trimmed) throw invalid('payee.nickname', 'must not be blank');
  return trimmed;
}

const present = (value: string | null | undefined): boolean => value !== undefined && value !== null && value !== '';
const text = (value: string | null | undefined): string | null => (present(value) ? value! : null);
