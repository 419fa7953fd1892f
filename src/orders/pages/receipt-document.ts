import { readFileSync } from 'node:fs';
import { localTime } from '../../platform/time-zone.js';
import { WALLET_NAMES } from '../../rails/acquirer.js';
import { displayAmount } from '../../web/layout.js';
import type { OrderView } from '../present.js';

/**
 * The receipt as a PDF, made from plain data. It runs on a worker thread (see receipt.ts): a receipt of 500 long
 * lines takes most of a second to lay out, which the event loop must never spend.
 */

export interface ReceiptInput {
  view: Pick<OrderView, 'order' | 'items' | 'transactions'> & { merchant: { name: string } };
  options: ReceiptOptions;
}

export interface ReceiptOptions {
  timezone: string;
  issuedAt: number;
  sandbox: boolean;
  font?: { path: string; family: string | undefined };
}

/** The worker's task. */
export default async function renderReceipt(input: ReceiptInput): Promise<Uint8Array> {
  return receiptPdf(input.view, input.options);
}

/**
 * The receipt: merchant, order, its lines, every transaction and the totals. In the configured font (only the
 * glyphs used are embedded), else in PDFKit's built-in Helvetica, which has nothing beyond Latin-1: other
 * characters then print as "?".
 */
export async function receiptPdf(view: ReceiptInput['view'], options: ReceiptOptions): Promise<Buffer> {
  const { order } = view;
  const amount = (minor: number) => displayAmount(minor, order.currency_exponent, order.currency);
  const when = (ms: number) => {
    const t = localTime(ms, options.timezone);
    const two = (n: number) => String(n).padStart(2, '0');
    return `${t.year}-${two(t.month)}-${two(t.day)} ${two(t.hour)}:${two(t.minute)}`;
  };
  // Loaded by the first receipt a thread prints: a process that never prints one never pays for it.
  const { default: PDFDocument } = await import('pdfkit');
  const doc = new PDFDocument({
    size: 'A4',
    margin: 50,
    // Dated by the business clock, not the thread's wall clock: the same order and minute give the same bytes.
    info: {
      Title: `Receipt ${order.number}`,
      Author: view.merchant.name,
      Producer: 'paygate',
      Creator: 'paygate',
      CreationDate: new Date(options.issuedAt),
    },
  });
  const [regular, heavy] = options.font ? ['body', 'body'] : ['Helvetica', 'Helvetica-Bold'];
  if (options.font) doc.registerFont('body', fontBytes(options.font.path), options.font.family ?? '');
  const printable = options.font ? (text: string) => text : latin1;
  const done = new Promise<Buffer>((resolve, reject) => {
    const chunks: Buffer[] = [];
    doc.on('data', (chunk: Buffer) => chunks.push(chunk));
    doc.on('end', () => resolve(Buffer.concat(chunks)));
    doc.on('error', reject);
  });

  const left = doc.page.margins.left;
  const right = doc.page.width - doc.page.margins.right;
  const width = right - left;
  const row = (label: string, value: string, strong = false) => {
    const y = doc.y;
    doc.font(strong ? heavy : regular).fontSize(10);
    doc.text(printable(label), left, y, { width: width - 140 });
    const after = doc.y;
    doc.text(printable(value), right - 140, y, { width: 140, align: 'right' });
    doc.y = Math.max(after, doc.y);
  };
  const field = (label: string, value: string) => {
    const y = doc.y;
    doc.font(regular).fontSize(10).fillColor('#4a5468').text(printable(label), left, y, { width: 100 });
    doc.fillColor('#000000').text(printable(value), left + 110, y, { width: width - 110 });
  };
  const heading = (text: string) => {
    doc.moveDown(1).font(heavy).fontSize(12).text(printable(text), left, doc.y, { width });
    doc
      .moveTo(left, doc.y + 2)
      .lineTo(right, doc.y + 2)
      .strokeColor('#c4cbd8')
      .stroke()
      .moveDown(0.5);
  };

  doc.font(heavy).fontSize(20).text(printable(view.merchant.name), left, doc.y, { width });
  doc
    .font(regular)
    .fontSize(12)
    .fillColor('#4a5468')
    .text(options.sandbox ? 'Receipt (sandbox: no real money moved)' : 'Receipt');
  doc.fillColor('#000000').moveDown(1);
  field('Order number', order.number);
  field('Reference', order.reference_number);
  field('Date', `${when(order.created_at)} (${options.timezone})`);
  field('Status', order.voided_at !== null ? 'cancelled' : order.correspondence_state.replace('_', ' '));
  if (order.note !== null) field('Note', order.note);

  const lines = view.items.filter((item) => item.purchasable_type !== 'RearTips');
  if (lines.length > 0) {
    heading('Items');
    for (const item of lines) {
      const name = `${item.label ?? item.purchasable_type}${item.quantity !== 1 ? ` x ${item.quantity} at ${amount(item.price)}` : ''}`;
      row(name, amount(item.total));
    }
  }

  heading('Totals');
  row('Subtotal', amount(order.subtotal));
  if (order.initial_tips !== 0) row('Tips', amount(order.initial_tips));
  row('Total', amount(order.initial_total), true);
  row('Paid', amount(order.paid_total));
  row('Amount due', amount(Math.max(0, order.initial_total - order.paid_total)), true);

  if (view.transactions.length > 0) {
    heading('Transactions');
    for (const t of view.transactions) {
      const card = JSON.parse(t.payment_data) as { last_4_digits?: string; credit_card_type?: string };
      const method =
        t.payment_method === 'credit_card'
          ? `card${card.credit_card_type ? ` ${card.credit_card_type}` : ''}${card.last_4_digits ? ` ending ${card.last_4_digits}` : ''}`
          : (WALLET_NAMES[t.payment_method as keyof typeof WALLET_NAMES] ?? t.payment_method);
      const state = t.status === 'succeeded' ? (t.voided === 1 ? 'voided' : 'succeeded') : t.status;
      // The right-hand column is money that moved; an attempt that moved none says its amount in words instead.
      const moved = t.status === 'succeeded' && t.voided === 0;
      const label = `${when(t.created_at)}  ${t.type}, ${method}: ${state}${moved ? '' : `, ${amount(t.amount)} not charged`}  (${t.id})`;
      row(label, moved ? `${t.type === 'Refund' ? '-' : ''}${amount(t.amount)}` : '');
    }
  }

  doc
    .moveDown(2)
    .font(regular)
    .fontSize(8)
    .fillColor('#6a7386')
    .text(
      printable(`Issued ${when(options.issuedAt)} (${options.timezone}) by paygate for ${view.merchant.name}.`),
      left,
      doc.y,
      { width },
    );
  doc.end();
  return done;
}

const loadedFonts = new Map<string, Buffer>();

/** A CJK font is megabytes: read once per thread, not once per receipt (only the glyphs used are embedded). */
function fontBytes(path: string): Buffer {
  let bytes = loadedFonts.get(path);
  if (!bytes) {
    bytes = readFileSync(path);
    loadedFonts.set(path, bytes);
  }
  return bytes;
}

/** What Helvetica can print: Latin-1, other characters as "?". */
function latin1(text: string): string {
  return text.replace(/[^\x20-\x7e\xa0-\xff]/g, '?');
}
