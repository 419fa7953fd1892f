import type { Static, TSchema } from 'typebox';

/**
 * Every merchant job's payload schema, by its kind. Each capability adds its own kinds from its `jobs.ts`, where the
 * job is declared (TypeScript's declaration merging):
 *
 *   declare module '../scheduler/job-types.js' {
 *     interface MerchantJobPayloads { 'orders.settle': typeof SettlePayload }
 *   }
 *
 * so that scheduling a job by its kind, anywhere, is checked against its declaration without importing it (a verb
 * schedules the job whose handler calls that verb: an import would go round in a circle).
 */
// biome-ignore lint/suspicious/noEmptyInterface: capabilities add their job kinds to it by declaration merging, which a type alias cannot take
export interface MerchantJobPayloads {}

export type MerchantJobKind = keyof MerchantJobPayloads & string;

/** What a job of this kind carries, as its schema declares it. */
export type PayloadOf<K extends MerchantJobKind> = MerchantJobPayloads[K] extends TSchema
  ? Static<MerchantJobPayloads[K]>
  : never;
