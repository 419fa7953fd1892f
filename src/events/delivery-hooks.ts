import type { Db } from '../platform/database/database.js';
import type { DeliveryRow } from './store.js';

/** An event as a delivery sends it. */
export interface OutgoingEvent {
  id: string;
  action: string;
  subject_id: string | null;
  payload: string;
}

/**
 * What happens to one attempt instead of, or around, the plain request: chosen before it is made. Everything is
 * optional: an empty plan is the plain request.
 */
export interface AttemptPlan {
  /** Not sent: this is the answer recorded, as if the receiver had given it (an injected status, timeout or reset). */
  instead?: { status?: number; error?: string };
  /** Answered here, without the network: paygate is the receiver (its built-in inbox). */
  answeredHere?: { status: number; body: string };
  /** Waits for this before sending (a delay, or a place in an out-of-order window). */
  before?: () => Promise<void>;
  /** Sent this many times, one after another (a duplicate delivery); the last answer is the attempt's. */
  times?: number;
  /** Recorded on the attempt: the rule that shaped it. */
  fault?: { rule_id: string; effect: string };
  /** Whether what was sent and answered is handed to `recorded`. */
  observe?: boolean;
}

/** One request made (or answered in its stead) for an observed attempt. */
export interface ObservedRequest {
  delivery: DeliveryRow;
  event: OutgoingEvent;
  headers: Record<string, string>;
  /** Wall time. */
  startedAt: number;
  status: number | undefined;
  error: string | undefined;
  /** The receiver's answer, the start of it. */
  bodyExcerpt: string | undefined;
  answeredAt: number;
  fault: { rule_id: string; effect: string } | undefined;
}

/**
 * What a capability adds around deliveries (the sandbox lab: faults and captures), given to the sender by the
 * composition root so that the outbox knows no capability.
 */
export interface DeliveryHooks {
  /** Plans, by delivery id, for a round about to be sent. */
  plan(
    db: Db,
    deliveries: readonly DeliveryRow[],
    events: ReadonlyMap<string, OutgoingEvent>,
  ): Promise<Map<string, AttemptPlan>>;
  /** The observed requests of a round, in the transaction that records its attempts. */
  recorded(tx: Db, requests: readonly ObservedRequest[]): Promise<void>;
}
