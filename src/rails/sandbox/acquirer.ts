import { createHash, randomBytes } from 'node:crypto';
import type { Selectable } from 'kysely';
import { brandOf, maskedParts } from '../../orders/card.js';
import type { Clock } from '../../platform/clock.js';
import type { Db } from '../../platform/database/database.js';
import type { SandboxAcquirerOperationsTable } from '../../platform/database/schema.js';
import { forUpdate } from '../../platform/database/locking.js';
import type { AcquirerResult, CardAcquirer, ChallengeOutcome, MoneyOperation } from '../acquirer.js';
import { answerDelayOf, sandboxOutcome } from './cards.js';

type Operation = Selectable<SandboxAcquirerOperationsTable>;

const APPROVED = { responseCode: '00', responseMessage: 'Approved' } as const;

/**
 * The built-in acquirer of sandbox mode. Outcomes follow the magic card numbers (./cards.ts); auth codes and
 * retrieval reference numbers derive from the operation's reference, so a run is reproducible. It keeps its own
 * ledger, as a real acquirer does, which is what lets the platform recover a payment it lost track of.
 */
export class SandboxAcquirer implements CardAcquirer {
  readonly name = 'paygate sandbox acquirer';
  readonly type = 'sandbox';

  constructor(private readonly deps: { db: Db; wallClock: Clock; publicBaseUrl: string }) {}

  /** An operation is done once: a retry, or a request arriving after recovery cancelled it, gets the first answer. */
  async authorize(request: Parameters<CardAcquirer['authorize']>[0]): Promise<AcquirerResult> {
    const outcome = sandboxOutcome(request.card.number);
    const card = maskedParts(request.card.number);
    const base = {
      kind: request.capture ? ('sale' as const) : ('authorize' as const),
      card_first6: card.first6,
      card_last4: card.last4,
      card_brand: brandOf(request.card.number),
    };
    switch (outcome.kind) {
      case 'approve': {
        const result = await this.record(request, { ...base, status: 'approved', ...APPROVED });
        if (outcome.answerAfterMs) await new Promise((resolve) => setTimeout(resolve, outcome.answerAfterMs));
        return result;
      }
      case 'decline':
        return this.record(request, { ...base, status: 'declined', responseCode: outcome.code, responseMessage: outcome.message });
      case 'fault':
        return this.record(request, { ...base, status: 'failed', responseCode: outcome.code, responseMessage: outcome.message });
      case 'challenge':
        return this.record(request, {
          ...base, status: 'challenge', responseCode: '1A', responseMessage: 'Additional customer authentication required',
          challengeToken: randomBytes(16).toString('base64url'),
        });
    }
  }

  async completeChallenge(reference: string, outcome: ChallengeOutcome): Promise<AcquirerResult> {
    const operation = await this.find(reference);
    if (!operation) throw new Error(`no sandbox operation ${reference}`);
    if (operation.status !== 'challenge') return this.resultOf(operation);
    const declined = (message: string) => ({ status: 'declined' as const, response_code: '05', response_message: message, auth_code: null });
    const change = outcome === 'passed'
      ? { status: 'approved' as const, response_code: APPROVED.responseCode, response_message: APPROVED.responseMessage, auth_code: authCodeOf(reference) }
      : declined(outcome === 'failed' ? '3-D Secure authentication failed' : '3-D Secure challenge abandoned: not completed in time');
    const updated = await this.deps.db.updateTable('sandbox_acquirer_operations')
      .set({ ...change, challenge_token: null, updated_at: this.now() })
      .where('reference', '=', reference).where('status', '=', 'challenge')
      .returningAll().executeTakeFirst();
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
      kind: operation.kind, status: 'failed', responseCode: '91', responseMessage: 'Cancelled: the request never completed; nothing was charged',
      card_first6: null, card_last4: null, card_brand: null,
    });
  }

  /**
   * Captures, voids and refunds are checked against the ledger as an acquirer would: a capture only of an open
   * authorisation, once and for no more than it; a void only of what is neither voided nor (for an
   * authorisation) captured; refunds only of a sale or capture standing, never more than it in all.
   */
  private async followUp(kind: 'capture' | 'void' | 'refund', request: MoneyOperation & { originalReference: string }): Promise<AcquirerResult> {
    const result = await this.deps.db.transaction().execute(async (tx) => {
      const original = await forUpdate(tx, tx.selectFrom('sandbox_acquirer_operations').selectAll().where('reference', '=', request.originalReference))
        .executeTakeFirst();
      const related = original
        ? await tx.selectFrom('sandbox_acquirer_operations').selectAll()
          .where('original_reference', '=', original.reference).where('status', '=', 'approved').where('reference', '!=', request.reference).execute()
        : [];
      const refusal = original ? followUpRefusal(kind, request, original, related) : { code: '25', message: 'Unable to locate the original transaction' };
      const answer = await this.record(request, {
        kind,
        status: refusal ? 'declined' : 'approved',
        responseCode: refusal?.code ?? APPROVED.responseCode,
        responseMessage: refusal?.message ?? APPROVED.responseMessage,
        card_first6: original?.card_first6 ?? null,
        card_last4: original?.card_last4 ?? null,
        card_brand: original?.card_brand ?? null,
        originalReference: request.originalReference,
      }, tx);
      return { result: answer, delayMs: answerDelayOf({ first6: original?.card_first6 ?? null, last4: original?.card_last4 ?? null }) };
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
      challengeToken?: string;
    },
    db: Db = this.deps.db,
  ): Promise<AcquirerResult> {
    const now = this.now();
    const row: Operation = {
      reference: request.reference,
      merchant_id: request.merchantId,
      kind: fields.kind,
      status: fields.status,
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
      challenge_token: fields.challengeToken ?? null,
      created_at: now,
      updated_at: now,
    };
    // A retry of the same reference finds the first answer: the acquirer never does an operation twice.
    const inserted = await db.insertInto('sandbox_acquirer_operations').values(row)
      .onConflict((oc) => oc.column('reference').doNothing()).returningAll().executeTakeFirst();
    return this.resultOf(inserted ?? (await this.find(request.reference, db))!);
  }

  private resultOf(operation: Operation): AcquirerResult {
    return {
      status: operation.status,
      responseCode: operation.response_code,
      responseMessage: operation.response_message,
      rrn: operation.rrn,
      ...(operation.auth_code !== null && { authCode: operation.auth_code }),
      ...(operation.status === 'failed' && { retryable: true }),
      ...(operation.status === 'challenge' && operation.challenge_token !== null && {
        challengeUrl: `${this.deps.publicBaseUrl}/pay/3ds/${operation.challenge_token}`,
      }),
    };
  }

  private find(reference: string, db: Db = this.deps.db): Promise<Operation | undefined> {
    return db.selectFrom('sandbox_acquirer_operations').selectAll().where('reference', '=', reference).executeTakeFirst();
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
  if (original.kind === 'void' || original.kind === 'refund') return invalid(`a ${original.kind} cannot be ${kind === 'void' ? 'voided' : `${kind}d`}`);
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
      if (refunded + request.amount > original.amount) return { code: '13', message: 'Invalid amount: more than is left to refund' };
      return undefined;
    }
  }
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
