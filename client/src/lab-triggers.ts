import type { ReplyData, RequestBody } from './types.js';

const LAB = '/svc/sandbox/api/v1';

/** What a trigger answers: its event, how far the clock moved for it, and the objects made, by their identifiers. */
export type TriggerOutcome = ReplyData<'runLabTrigger'>;
/** Fields of the objects a trigger makes, by the API's names: `{currency: 'USD', charge_fee: '12.50'}`. */
export type TriggerFields = NonNullable<RequestBody<'runLabTrigger'>['set']>;

/** What the class needs of the client: its signed call (`PaygateClient.call`), with the client's options. */
export interface SignedCaller<Options> {
  call<T>(method: string, target: string, body?: unknown, options?: Options): Promise<T>;
}

/** The sandbox lab's triggers (docs/lab.md): cause any event of docs/webhooks.md with real objects. */
export class LabTriggersApi<Options = unknown> {
  constructor(private readonly client: SignedCaller<Options>) {}

  /**
   * Makes the real objects that cause an event of `event` (`order.paid`, `payout.settled`...), with `set` overriding
   * their fields; answers once the event is recorded. Where time must pass the merchant's clock moves: give a long
   * move a longer `timeoutMs`.
   */
  async trigger(event: string, set?: TriggerFields, options?: Options): Promise<TriggerOutcome> {
    return this.client.call<TriggerOutcome>(
      'POST',
      `${LAB}/triggers`,
      { event, ...(set !== undefined && { set }) },
      options,
    );
  }
}
