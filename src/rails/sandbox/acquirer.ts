import { createHash } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import { brandOf, maskedParts } from '../../cards/card.js';
import type { Clock } from '../../platform/clock.js';
import type { Config } from '../../platform/config.js';
import { type Db, preparedQuery } from '../../platform/database/database.js';
import { forUpdate } from '../../platform/database/locking.js';
import { exponentOf, formatAmount } from '../../platform/money/money.js';
import type { PlatformSecrets } from '../../platform/secrets.js';
import type {
  AcquirerResult,
  AutoDebitWallet,
  CardAcquirer,
  MoneyOperation,
  PayerAction,
  PayerOutcome,
  WalletMethod,
} from '../acquirer.js';
import { answerDelayOf, sandboxOutcome, storedChargeDeclineOf } from './cards.js';
import { OperationRecorder, recordOne, type SandboxOperation } from './recorder.js';

export type { SandboxOperation };

type Operation = SandboxOperation;

const APPROVED = { responseCode: '00', responseMessage: 'Approved' } as const;

/**
 * The built-in acquirer of sandbox mode. Outcomes follow the magic card numbers (./cards.ts); auth codes and
 * retrieval reference numbers derive from the operation's reference, so a run is reproducible. It keeps its own
 * ledger, as a real acquirer does, which is what lets the platform recover a payment it lost track of.
 */
export class SandboxAcquirer implements CardAcquirer {
  readonly name = 'paygate sandbox acquirer';
  readonly type = 'sandbox';

  private readonly recorder: OperationRecorder;
  /**
   * Stored cards (approved verifications and auto-debit agreements) by reference, as charges of tokens find them: an
   * approved operation never changes, so a token charged again (a batch charges each many times) is not read again.
   */
  private readonly storedCards = new LRUCache<string, Operation>({ max: 10_000 });

  constructor(
    private readonly deps: {
      db: Db;
      wallClock: Clock;
      config: Pick<Config, 'publicBaseUrl'>;
      secrets: Pick<PlatformSecrets, 'fingerprint'>;
    },
  ) {
    this.recorder = new OperationRecorder(deps.db);
  }

  /**
   * The token in the address of an operation's payer page (3-D Secure, the wallet's app): keyed by the platform
   * secret, so nobody can guess it, and derived from the operation's reference, so that a deterministic merchant's
   * run gives the same addresses every time.
   */
  private pageToken(reference: string): string {
    return Buffer.from(this.deps.secrets.fingerprint('sandbox payer page', reference), 'hex')
      .subarray(0, 16)
      .toString('base64url');
  }

  /** An operation is done once: a retry, or a request arriving after recovery cancelled it, gets the first answer. */
  async authorize(request: Parameters<CardAcquirer['authorize']>[0]): Promise<AcquirerResult> {
    const kind = request.capture ? ('sale' as const) : ('authorize' as const);
    if ('storedReference' in request.card) return this.chargeStored(request, kind, request.card.storedReference);
    const outcome = sandboxOutcome(request.card.number);
    const card = maskedParts(request.card.number);
    const base = { kind, card_first6: card.first6, card_last4: card.last4, card_brand: brandOf(request.card.number) };
    const challenge = () =>
      this.record(request, {
        ...base,
        status: 'awaiting_payer',
        responseCode: '1A',
        responseMessage: 'Additional customer authentication required',
        payerToken: this.pageToken(request.reference),
      });
    switch (outcome.kind) {
      case 'approve': {
        if (request.verification && !outcome.frictionless) return challenge();
        const result = await this.record(request, { ...base, status: 'approved', ...APPROVED });
        if (outcome.answerAfterMs) await new Promise((resolve) => setTimeout(resolve, outcome.answerAfterMs));
        return result;
      }
      case 'decline':
        // A card that binds and then declines: its verification (no charge: voided at once) is approved, frictionless.
        if (request.verification && outcome.verifies)
          return this.record(request, { ...base, status: 'approved', ...APPROVED });
        return this.record(request, {
          ...base,
          status: 'declined',
          responseCode: outcome.code,
          responseMessage: outcome.message,
        });
      case 'fault':
        return this.record(request, {
          ...base,
          status: 'failed',
          responseCode: outcome.code,
          responseMessage: outcome.message,
        });
      case 'challenge':
        return challenge();
    }
  }

  /**
   * A stored card (a payment token): charged as it was verified, with no new challenge; a card that binds and
   * then declines (./cards.ts) is declined, known from its first six and last four digits as the acquirer keeps them.
   */
  private async chargeStored(
    request: MoneyOperation,
    kind: 'sale' | 'authorize',
    storedReference: string,
  ): Promise<AcquirerResult> {
    const stored = this.storedCards.get(storedReference) ?? (await this.find(storedReference));
    const base = {
      kind,
      card_first6: stored?.card_first6 ?? null,
      card_last4: stored?.card_last4 ?? null,
      card_brand: stored?.card_brand ?? null,
    };
    if (stored?.status !== 'approved' || (stored.kind !== 'authorize' && stored.kind !== 'agreement')) {
      return this.record(request, {
        ...base,
        status: 'declined',
        responseCode: '14',
        responseMessage: 'Invalid card: no card stored under this reference',
      });
    }
    this.storedCards.set(storedReference, stored);
    const decline = storedChargeDeclineOf({ first6: stored.card_first6, last4: stored.card_last4 });
    if (decline)
      return this.record(request, {
        ...base,
        status: 'declined',
        responseCode: decline.code,
        responseMessage: decline.message,
      });
    return this.record(request, { ...base, status: 'approved', ...APPROVED });
  }

  /**
   * An auto-debit agreement waits for the payer to allow it in the wallet's app (in the sandbox, its stand-in page).
   */
  async startWalletAgreement(request: {
    reference: string;
    merchantId: string;
    method: AutoDebitWallet;
  }): Promise<AcquirerResult> {
    return this.record(
      { reference: request.reference, merchantId: request.merchantId, amount: 0, currency: 'HKD' },
      {
        kind: 'agreement',
        paymentMethod: request.method,
        status: 'awaiting_payer',
        responseCode: '09',
        responseMessage: 'Waiting for the payer',
        card_first6: null,
        card_last4: null,
        card_brand: null,
        payerToken: this.pageToken(request.reference),
      },
    );
  }

  /** A wallet payment waits for the payer: in the sandbox, the simulation endpoints stand in for the wallet's app. */
  async startWalletPayment(request: MoneyOperation & { method: WalletMethod }): Promise<AcquirerResult> {
    return this.record(request, {
      kind: 'sale',
      paymentMethod: request.method,
      status: 'awaiting_payer',
      responseCode: '09',
      responseMessage: 'Waiting for the payer',
      card_first6: null,
      card_last4: null,
      card_brand: null,
      payerToken: this.pageToken(request.reference),
    });
  }

  async completePayerAction(reference: string, outcome: PayerOutcome): Promise<AcquirerResult> {
    const operation = await this.find(reference);
    if (!operation) throw new Error(`no sandbox operation ${reference}`);
    if (operation.status !== 'awaiting_payer') return this.resultOf(operation);
    const card = operation.payment_method === 'credit_card';
    const declined = (message: string) => ({
      status: 'declined' as const,
      response_code: '05',
      response_message: message,
      auth_code: null,
    });
    const change =
      outcome === 'passed'
        ? {
            status: 'approved' as const,
            response_code: APPROVED.responseCode,
            response_message: APPROVED.responseMessage,
            auth_code: authCodeOf(reference),
          }
        : outcome === 'failed'
          ? declined(card ? '3-D Secure authentication failed' : 'The payer declined the payment in the wallet')
          : declined(
              card
                ? '3-D Secure challenge abandoned: not completed in time'
                : 'The wallet payment expired: the payer did not pay in time',
            );
    const updated = await this.deps.db
      .updateTable('sandbox_acquirer_operations')
      .set({ ...change, payer_token: null, updated_at: this.now() })
      .where('reference', '=', reference)
      .where('status', '=', 'awaiting_payer')
      .returningAll()
      .executeTakeFirst();
    return this.resultOf(updated ?? (await this.find(reference))!);
  }

  capture(request: MoneyOperation & { originalReference: string }): Promise<AcquirerResult> {
    return this.followUp('capture', request);
  }

  void(request: MoneyOperation & { originalReference: string }): Promise<AcquirerResult> {
    return this.followUp('void', request);
  }

  refund(request: MoneyOperation & { originalReference: string }): Promise<AcquirerResult> {
    return this.followUp('refund', request);
  }

  async resolve(operation: Parameters<CardAcquirer['resolve']>[0]): Promise<AcquirerResult> {
    // The first record of a reference wins: a cancellation written here refuses a late arrival, and a late
    // arrival written first is what this returns.
    return this.record(operation, {
      kind: operation.kind,
      status: 'failed',
      responseCode: '91',
      responseMessage: 'Cancelled: the request never completed; nothing was charged',
      card_first6: null,
      card_last4: null,
      card_brand: null,
    });
  }

  /**
   * Captures, voids and refunds are checked against the ledger as an acquirer would: a capture only of an open
   * authorisation, once and for no more than it; a void only of what is neither voided nor (for an
   * authorisation) captured; refunds only of a sale or capture standing, never more than it in all.
   */
  private async followUp(
    kind: 'capture' | 'void' | 'refund',
    request: MoneyOperation & { originalReference: string },
  ): Promise<AcquirerResult> {
    const result = await this.deps.db.transaction().execute(async (tx) => {
      const original = await forUpdate(
        tx,
        tx.selectFrom('sandbox_acquirer_operations').selectAll().where('reference', '=', request.originalReference),
      ).executeTakeFirst();
      const related = original
        ? await tx
            .selectFrom('sandbox_acquirer_operations')
            .selectAll()
            .where('original_reference', '=', original.reference)
            .where('status', '=', 'approved')
            .where('reference', '!=', request.reference)
            .execute()
        : [];
      const refusal = original
        ? followUpRefusal(kind, request, original, related)
        : { code: '25', message: 'Unable to locate the original transaction' };
      const answer = await this.record(
        request,
        {
          kind,
          status: refusal ? 'declined' : 'approved',
          responseCode: refusal?.code ?? APPROVED.responseCode,
          responseMessage: refusal?.message ?? APPROVED.responseMessage,
          card_first6: original?.card_first6 ?? null,
          card_last4: original?.card_last4 ?? null,
          card_brand: original?.card_brand ?? null,
          originalReference: request.originalReference,
        },
        tx,
      );
      return {
        result: answer,
        delayMs: answerDelayOf({ first6: original?.card_first6 ?? null, last4: original?.card_last4 ?? null }),
      };
    });
    // Done and recorded at once; only the answer is slow, as with the payment itself.
    if (result.delayMs > 0) await new Promise((resolve) => setTimeout(resolve, result.delayMs));
    return result.result;
  }

  private async record(
    request: MoneyOperation,
    fields: {
      kind: Operation['kind'];
      status: Operation['status'];
      responseCode: string;
      responseMessage: string;
      card_first6: string | null;
      card_last4: string | null;
      card_brand: string | null;
      originalReference?: string;
      payerToken?: string;
      paymentMethod?: string;
    },
    tx?: Db,
  ): Promise<AcquirerResult> {
    const now = this.now();
    const row: Operation = {
      reference: request.reference,
      merchant_id: request.merchantId,
      kind: fields.kind,
      status: fields.status,
      payment_method: fields.paymentMethod ?? 'credit_card',
      amount: request.amount,
      currency: request.currency,
      original_reference: fields.originalReference ?? null,
      card_first6: fields.card_first6,
      card_last4: fields.card_last4,
      card_brand: fields.card_brand,
      response_code: fields.responseCode,
      response_message: fields.responseMessage,
      auth_code: fields.status === 'approved' ? authCodeOf(request.reference) : null,
      rrn: rrnOf(request.reference),
      payer_token: fields.payerToken ?? null,
      created_at: now,
      updated_at: now,
    };
    // A retry of the same reference finds the first answer: the acquirer never does an operation twice.
    return this.resultOf(await (tx ? recordOne(tx, row) : this.recorder.record(row)));
  }

  private resultOf(operation: Operation): AcquirerResult {
    return {
      status: operation.status,
      responseCode: operation.response_code,
      responseMessage: operation.response_message,
      rrn: operation.rrn,
      ...(operation.auth_code !== null && { authCode: operation.auth_code }),
      ...(operation.status === 'failed' && { retryable: true }),
      ...(operation.status === 'awaiting_payer' &&
        operation.payer_token !== null && {
          payerAction: this.payerActionOf(operation.payment_method, operation.payer_token, operation),
        }),
    };
  }

  /** Where the payer acts: a 3-D Secure page, a wallet's QR code (and for Alipay, a page to redirect to). */
  private payerActionOf(method: string, token: string, operation: Operation): PayerAction {
    const page = `${this.deps.config.publicBaseUrl}/pay/${method === 'credit_card' ? '3ds' : 'wallet'}/${token}`;
    switch (method) {
      case 'credit_card':
        return { kind: '3ds', url: page };
      case 'alipay':
        return { kind: 'wallet', qrCode: page, redirectUrl: page };
      case 'fps':
        return { kind: 'wallet', qrCode: fpsQrPayload(operation) };
      default:
        return { kind: 'wallet', qrCode: page };
    }
  }

  /**
   * For the sandbox's stand-in pages (the card issuer's challenge, the wallet's app): what a payer token names, while
   * it waits.
   */
  async awaitingPayer(token: string): Promise<Operation | undefined> {
    return this.deps.db
      .selectFrom('sandbox_acquirer_operations')
      .selectAll()
      .where('payer_token', '=', token)
      .where('status', '=', 'awaiting_payer')
      .executeTakeFirst();
  }

  async simulatedPayerPage(reference: string): Promise<string | undefined> {
    const token = (await this.find(reference))?.payer_token;
    return token ? `${this.deps.config.publicBaseUrl}/pay/wallet/${token}` : undefined;
  }

  private async find(reference: string): Promise<Operation | undefined> {
    return (await operationByReference(this.deps.db, { reference })).rows[0];
  }

  private now(): number {
    return this.deps.wallClock.now().getTime();
  }
}

function followUpRefusal(
  kind: 'capture' | 'void' | 'refund',
  request: MoneyOperation,
  original: Operation,
  related: Operation[],
): { code: string; message: string } | undefined {
  const invalid = (message: string) => ({ code: '12', message: `Invalid transaction: ${message}` });
  if (original.status !== 'approved') return invalid('the original transaction was not approved');
  if (original.kind === 'void' || original.kind === 'refund')
    return invalid(`a ${original.kind} cannot be ${kind === 'void' ? 'voided' : `${kind}d`}`);
  const voided = related.some((op) => op.kind === 'void');
  const captures = related.filter((op) => op.kind === 'capture');
  if (voided) return invalid('the original transaction is voided');
  switch (kind) {
    case 'capture':
      if (original.kind !== 'authorize') return invalid('only an authorisation can be captured');
      if (captures.length > 0) return invalid('the authorisation is captured already');
      if (request.amount > original.amount) return { code: '13', message: 'Invalid amount: more than was authorised' };
      return undefined;
    case 'void':
      if (captures.length > 0) return invalid('the authorisation is captured: void the capture');
      return undefined;
    case 'refund': {
      if (original.kind === 'authorize') return invalid('an authorisation cannot be refunded: refund its capture');
      const refunded = related.filter((op) => op.kind === 'refund').reduce((sum, op) => sum + op.amount, 0);
      if (refunded + request.amount > original.amount)
        return { code: '13', message: 'Invalid amount: more than is left to refund' };
      return undefined;
    }
  }
}

/**
 * An EMVCo merchant-presented QR payload, the kind FPS uses (HKMA's Common QR Code): a dynamic code with the amount,
 * the currency and our reference, ending in its CRC. Sandbox merchant data; scanning it pays nothing.
 */
function fpsQrPayload(operation: Operation): string {
  const field = (id: string, value: string) => `${id}${String(value.length).padStart(2, '0')}${value}`;
  const numeric: Record<string, string> = { HKD: '344', CNY: '156' };
  const amount = formatAmount(operation.amount, exponentOf(operation.currency));
  const body = [
    field('00', '01'),
    field('01', '12'),
    // The sandbox's FPS identifier: seven digits, as HKICL issues them.
    field('26', field('00', 'hk.com.hkicl') + field('02', '1234567')),
    field('52', '0000'),
    field('53', numeric[operation.currency]!),
    field('54', amount),
    field('58', 'HK'),
    field('59', 'paygate sandbox'),
    field('60', 'HONG KONG'),
    field('62', field('05', operation.reference.replace(/-/g, '').slice(0, 25))),
  ].join('');
  const withCrcId = `${body}6304`;
  return `${withCrcId}${crc16(withCrcId)}`;
}

/** CRC-16/CCITT-FALSE, as EMVCo QR codes end with. */
function crc16(text: string): string {
  let crc = 0xffff;
  for (const byte of Buffer.from(text, 'utf8')) {
    crc ^= byte << 8;
    for (let bit = 0; bit < 8; bit += 1) crc = crc & 0x8000 ? ((crc << 1) ^ 0x1021) & 0xffff : (crc << 1) & 0xffff;
  }
  return crc.toString(16).toUpperCase().padStart(4, '0');
}

function digest(reference: string, salt: string): Buffer {
  return createHash('sha256').update(`${salt}:${reference}`).digest();
}

/** Six characters, letters and digits, as acquirers print them. */
function authCodeOf(reference: string): string {
  const alphabet = '0123456789ABCDEFGHJKLMNPQRSTUVWXYZ';
  return [...digest(reference, 'auth').subarray(0, 6)].map((byte) => alphabet[byte % alphabet.length]).join('');
}

/** Twelve digits. */
function rrnOf(reference: string): string {
  return String(digest(reference, 'rrn').readBigUInt64BE() % 10n ** 12n).padStart(12, '0');
}

const operationByReference = preparedQuery((db, p: { reference: string }) =>
  db.selectFrom('sandbox_acquirer_operations').selectAll().where('reference', '=', p.reference),
);
