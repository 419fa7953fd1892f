import type { Static, TSchema } from 'typebox';
import type { Context } from '../../context/context.js';

/** How a `set` value is read: as the API reads that field. */
export type FieldType = 'text' | 'amount' | 'integer' | 'boolean';

/** A field a trigger lets `set` override, by the API's own name for it. */
export interface TriggerField {
  /** As the request bodies name it, without the body's wrapper (`currency`, `customer.name`, `merchant.city`). */
  name: string;
  type: FieldType;
  /** What it sets, for the docs and the refusal that lists the fields. */
  description: string;
}

/** An object a trigger made, by its identifiers as the API names them (never the whole object). */
export type ObjectIdentifiers = Record<string, string>;

/**
 * What a trigger is given while it runs: the merchant's context (made again after each move of the clock), the
 * fields it was `set`, and the means to validate a body as the API does, to pass business time and to run the
 * merchant's due work.
 */
export interface TriggerRun {
  /** The merchant's context as the clock now stands: read it anew after passing time. */
  readonly ctx: Context;
  /** The value `set` gave this field (read as its type), or `fallback`. */
  value(field: string, fallback: unknown): unknown;
  /** Whether `set` gave this field. */
  given(field: string): boolean;
  /** A text unique to this run (`prefix-` and a fresh id's tail): references that never collide with an earlier run's. */
  unique(prefix: string, length?: number): string;
  /** Digits unique to this run (a phone number, an account number), `length` long. */
  digits(length: number): string;
  /** Validates a body against the API's own schema for it, refusing it as the API would (400 `100207`). */
  check<S extends TSchema>(schema: S, body: unknown): Static<S>;
  /** Records an object made, by its identifiers (in the order the reply and the one-line summary list them). */
  made(name: string, identifiers: ObjectIdentifiers): void;
  /** Moves the merchant's business clock forward; returns once what fell due on the way has run. */
  passTime(seconds: number): Promise<void>;
  /**
   * Moves the clock to the merchant's next due work, again and again, until `done` (at most `limitSeconds` in all):
   * for what happens at a time the trigger cannot name to the second (the daily settlement, the minute's expiry job).
   */
  passTimeUntil(done: () => Promise<boolean>, limitSeconds: number, what: string): Promise<void>;
  /** Runs the merchant's work due now (what the scheduler would run at its next poll), without moving the clock. */
  runDueWork(): Promise<void>;
  /** Whether the event of the trigger's kind about this subject is recorded. */
  eventRecorded(subjectId: string): Promise<boolean>;
}

/** One event kind of docs/webhooks.md, and how to make the real objects that cause it. */
export interface Trigger {
  kind: string;
  /** What it makes, in a line (docs/lab.md's table). */
  makes: string;
  /** How far the merchant's clock moves, in words (docs/lab.md's table): `none` when it does not. */
  clock: string;
  fields: readonly TriggerField[];
  /** Makes the objects; answers the id of the event's subject (an order's, a card's...), as the outbox records it. */
  run(run: TriggerRun): Promise<string>;
}

export function defineTrigger(trigger: Trigger): Trigger {
  return trigger;
}

/** Fields several triggers share. */
export const field = (name: string, type: FieldType, description: string): TriggerField => ({
  name,
  type,
  description,
});
