import { readCard } from '../cards/card.js';
import type { Context } from '../context/context.js';
import { localTime } from '../platform/time-zone.js';
import { type Html, html } from './html.js';

/** What the payment page's card form posts. Only the name is ever shown again: never the number or code. */
export interface PageCardForm {
  holder_name: string;
  number: string;
  expiry: string;
  cvv: string;
}

/** The card as the API takes it (payment.credit_card, a binding's card): checked, with the number's digits only. */
export interface PageCard {
  number: string;
  exp_month: string;
  exp_year: string;
  cvv: string | undefined;
  holder_name?: string;
}

const PROBLEMS: Record<string, string> = {
  number: 'Check the card number: it is not a valid card number.',
  exp_month: 'Check the expiry date: write it as MM/YY.',
  exp_year: 'Check the expiry date: the card has expired, or the year is not valid.',
  cvv: 'Check the security code: 3 or 4 digits.',
};

/** The form, checked as the API checks a card, with the problem told in the payer's words. */
export function readPageCard(
  ctx: Context,
  form: Record<string, string>,
): { input: PageCard } | { problem: string; form: Partial<PageCardForm> } {
  const holder = (form.holder_name ?? '').trim().slice(0, 255);
  const kept = { holder_name: holder };
  const expiry = /^\s*(\d{1,2})\s*\/\s*(\d{2}|\d{4})\s*$/.exec(form.expiry ?? '');
  if (!expiry) return { problem: PROBLEMS.exp_month!, form: kept };
  const raw = {
    number: (form.number ?? '').slice(0, 32),
    exp_month: expiry[1]!,
    exp_year: expiry[2]!,
    cvv: (form.cvv ?? '').trim(),
    holder_name: holder,
  };
  const now = localTime(ctx.clock.now().getTime(), ctx.merchant.timezone);
  const card = readCard(raw, { year: now.year, month: now.month }, 'card');
  if ('field' in card)
    return { problem: PROBLEMS[card.field.replace('card.', '')] ?? 'Check the card details.', form: kept };
  return {
    input: {
      number: card.number,
      exp_month: String(card.expMonth).padStart(2, '0'),
      exp_year: String(card.expYear),
      cvv: card.cvv,
      ...(holder !== '' && { holder_name: holder }),
    },
  };
}

/** The card form's fields, the same on every page that takes a card; the payer's browser may fill them in. */
export function cardFields(options: { holderName?: string; holderRequired: boolean }): Html {
  return html`<label for="holder_name">Name on card</label>
<input type="text" id="holder_name" name="holder_name" autocomplete="cc-name" maxlength="255" value="${options.holderName ?? ''}"${options.holderRequired ? html` required` : ''}>
<label for="number">Card number</label>
<input type="text" id="number" name="number" inputmode="numeric" autocomplete="cc-number" maxlength="23" placeholder="1234 1234 1234 1234" required>
<div class="row">
<div><label for="expiry">Expiry (MM/YY)</label>
<input type="text" id="expiry" name="expiry" inputmode="numeric" autocomplete="cc-exp" maxlength="7" placeholder="MM/YY" required></div>
<div><label for="cvv">Security code</label>
<input type="text" id="cvv" name="cvv" inputmode="numeric" autocomplete="cc-csc" maxlength="4" placeholder="CVC" required></div>
</div>`;
}
