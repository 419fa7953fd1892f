export type { PaygateClientOptions, RawReply, RequestOptions, RetryPolicy } from './client.js';
export { PaygateClient } from './client.js';
export { IDEMPOTENCY_IN_PROGRESS, PaygateConnectionError, PaygateError } from './errors.js';
export type { EventStreamQuery, StreamedEvent } from './lab-events.js';
export type { Capture, FaultRule, FaultRuleInput, InboxPage } from './lab-inbox.js';
export type { LabSnapshotsApi, Snapshot } from './lab-snapshots.js';
export type { LabTriggersApi, TriggerFields, TriggerOutcome } from './lab-triggers.js';
export type { SignedHeaders, SigningInput, SigningSteps, SignRequestInput } from './signing.js';
export {
  ALGORITHM,
  formatRequestTime,
  newNonce,
  parseRequestTime,
  signingMessage,
  signingSteps,
  signMessage,
  signRequest,
  verifyMessage,
} from './signing.js';
export * from './types.js';
export type { VerifiedWebhook } from './webhooks.js';
export { verifyWebhook, WebhookVerificationError } from './webhooks.js';
