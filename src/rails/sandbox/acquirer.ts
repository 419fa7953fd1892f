import { createHash, randomBytes } from 'node:crypto';
import type { Selectable } from 'kysely';
import { brandOf, maskedParts } from '../../orders/card.js';
import type { Clock } from '../../platform/clock.js';
import type { Db } from '../../platform/database/database.js';
import type { SandboxAcquirerOperationsTable } from '../../platform/database/schema.js';
import type { AcquirerResult, CardAcquirer, MoneyOperation } from '../acquirer.js';
import { sandboxOutcome } from './cards.js';

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

  async completeChallenge(reference: string, passed: boolean): Promise<AcquirerResult> {
    const operation = await this.find(reference);
    if (!operation) throw new Error(`no sandbox operation ${reference}`);
    if (operation.status !== 'challenge') return this.resultOf(operation);
    const change = passed
      ? { status: 'approved' as const, response_code: APPROVED.responseCode, response_message: APPROVED.responseMessage, auth_code: authCodeOf(reference) }
      : { status: 'declined' as const, response_code: '05', response_message: '3-D Secure authentication failed', auth_code: null };
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

  /** Captures, voids and refunds of an approved operation are approved; of anything else, declined. */
  private async followUp(kind: 'capture' | 'void' | 'refund', request: MoneyOperation & { originalReference: string }): Promise<AcquirerResult> {
    const original = await this.find(request.originalReference);
    const known = original !== undefined && original.status === 'approved';
    return this.record(request, {
      kind,
      status: known ? 'approved' : 'declined',
      responseCode: known ? APPROVED.responseCode : '25',
      responseMessage: known ? APPROVED.responseMessage : 'Unable to locate the original transaction',
      card_first6: original?.card_first6 ?? null,
      card_last4: original?.card_last4 ?? null,
      card_brand: original?.card_brand ?? null,
      originalReference: request.originalReference,
    });
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
    const inserted = await this.deps.db.insertInto('sandbox_acquirer_operations').values(row)
      .onConflict((oc) => oc.column('reference').doNothing()).returningAll().executeTakeFirst();
    return this.resultOf(inserted ?? (await this.find(request.reference))!);
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

  private find(reference: string): Promise<Operation | undefined> {
    return this.deps.db.selectFrom('sandbox_acquirer_operations').selectAll().where('reference', '=', reference).executeTakeFirst();
  }

  private now(): number {
    return this.deps.wallClock.now().getTime();
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
