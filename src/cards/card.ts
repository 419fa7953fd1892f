/** A card as entered, checked: the full number lives only in memory for the call to the acquirer. */
export interface CheckedCard {
  number: string;
  expMonth: number;
  /** Four digits. */
  expYear: number;
  cvv: string | undefined;
  holderName: string | undefined;
}

export type CardBrand = 'VISA' | 'MASTERCARD' | 'JCB' | 'AMEX' | 'UNIONPAY' | 'DISCOVER' | 'DINERS' | 'UNKNOWN';

export type CardProblem = { field: string; message: string };

export interface RawCard {
  number: string;
  exp_month: string | number;
  exp_year: string | number;
  cvv?: string;
  holder_name?: string;
}

/** Checks what a card form would: digits and Luhn, a real month, an expiry not in the past, a CVV's length. */
export function readCard(
  raw: RawCard,
  today: { year: number; month: number },
  prefix: string,
): CheckedCard | CardProblem {
  const number = raw.number.replace(/[ -]/g, '');
  if (!/^\d{12,19}$/.test(number)) return { field: `${prefix}.number`, message: 'must be 12 to 19 digits' };
  if (!passesLuhn(number)) return { field: `${prefix}.number`, message: 'is not a valid card number (check digit)' };

  const month = Number(raw.exp_month);
  if (!/^\d{1,2}$/.test(String(raw.exp_month)) || month < 1 || month > 12) {
    return { field: `${prefix}.exp_month`, message: 'must be a month from 1 to 12' };
  }
  const yearText = String(raw.exp_year);
  if (!/^(\d{2}|\d{4})$/.test(yearText)) return { field: `${prefix}.exp_year`, message: 'must be two or four digits' };
  const year = yearText.length === 2 ? 2000 + Number(yearText) : Number(yearText);
  if (year < today.year || (year === today.year && month < today.month)) {
    return { field: `${prefix}.exp_year`, message: 'the card has expired' };
  }
  if (year > today.year + 30) return { field: `${prefix}.exp_year`, message: 'is too far in the future' };

  if (raw.cvv !== undefined && !/^\d{3,4}$/.test(raw.cvv))
    return { field: `${prefix}.cvv`, message: 'must be 3 or 4 digits' };
  return { number, expMonth: month, expYear: year, cvv: raw.cvv, holderName: raw.holder_name };
}

export function passesLuhn(digits: string): boolean {
  let sum = 0;
  for (let i = 0; i < digits.length; i += 1) {
    let digit = Number(digits[digits.length - 1 - i]);
    if (i % 2 === 1) {
      digit *= 2;
      if (digit > 9) digit -= 9;
    }
    sum += digit;
  }
  return sum % 10 === 0;
}

export function brandOf(number: string): CardBrand {
  const two = Number(number.slice(0, 2));
  const four = Number(number.slice(0, 4));
  if (number.startsWith('4')) return 'VISA';
  if ((two >= 51 && two <= 55) || (four >= 2221 && four <= 2720)) return 'MASTERCARD';
  if (four >= 3528 && four <= 3589) return 'JCB';
  if (two === 34 || two === 37) return 'AMEX';
  if (two === 62) return 'UNIONPAY';
  if (number.startsWith('6011') || two === 65) return 'DISCOVER';
  if (two === 36 || two === 38 || (four >= 3000 && four <= 3059)) return 'DINERS';
  return 'UNKNOWN';
}

/** First six, last four: all the platform ever keeps of a number. */
export function maskedParts(number: string): { first6: string; last4: string; length: number } {
  return { first6: number.slice(0, 6), last4: number.slice(-4), length: number.length };
}

/** First six and last four digits, the rest hidden: what a page or a file may show of a card. */
export function maskCardNumber(number: string): string {
  return `${number.slice(0, 6)}${'*'.repeat(Math.max(0, number.length - 10))}${number.slice(-4)}`;
}

/** A run of 12 to 19 digits, spaces or dashes allowed between them: what could be a card number in free text. */
const CARD_LIKE = /\d(?:[ -]?\d){11,18}/g;

/**
 * Text that may hold a card number in the wrong place (a cell of a misaligned row, quoted back in a reason): every
 * run of digits as long as a card number is masked, whatever it turns out to be.
 */
export function withoutCardNumbers(text: string): string {
  return text.replace(CARD_LIKE, (run) => maskCardNumber(run.replace(/[ -]/g, '')));
}
