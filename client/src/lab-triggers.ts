import type { Caller, RequestOptions } from './calls.js';
import type { ReplyData, RequestBody } from './types.js';

const LAB = '/svc/sandbox/api/v1';

/** What a trigger answers: its event, how far the clock moved for it, and the objects made, by their identifiers. */
export type TriggerOutcome = ReplyData<'runLabTrigger'>;
/** Fields of the objects a trigger makes, by the API's names: `{currency: 'USD', charge_fee: '12.50'}`. */
export type TriggerFields = NonNullable<RequestBody<'runLabTrigger'>['set']>;

/** Sandbox lab: triggers (docs/lab.md), any event of docs/webhooks.md caused with real objects. Live mode refuses them. */
export class LabTriggersApi {
  constructor(private readonly client: Caller) {}

  /**
   * Makes the real objects that cause an event of `event` (`order.paid`, `payout.settled`...), with `set` overriding
   * their fields by the API's names; answers once the event is recorded. Where time must pass the merchant's clock
   * moves (`clock_moved_s`): give a long move a longer `timeoutMs`.
   */
  async trigger(event: string, set?: TriggerFields, options?: RequestOptions): Promise<TriggerOutcome> {
    return this.client.call<TriggerOutcome>(
      'POST',
      `${LAB}/triggers`,
      { event, ...(set !== undefined && { set }) },
      options,
    );
  }
}
