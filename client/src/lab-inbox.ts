import type { Caller, RequestOptions } from './calls.js';
import type { ReplyData, RequestBody } from './types.js';

const LAB = '/svc/sandbox/api/v1';

export type InboxPage = ReplyData<'listInbox'>;
export type Capture = ReplyData<'getCapture'>['capture'];
export type FaultRule = ReplyData<'addFaultRule'>['rule'];
export type FaultRuleInput = RequestBody<'addFaultRule'>;

/** Sandbox lab: the merchant's capture inbox (docs/lab.md). Live mode refuses it (403 900101). */
export class InboxApi {
  constructor(private readonly client: Caller) {}

  /**
   * The captures, newest first, with the inbox's URL: `event_type` (comma-separated), `object`, `since`, and the query
   * language's `filters` (`{'filter[answer.status][_gte]': '500'}`).
   */
  async list(
    query: {
      event_type?: string;
      object?: string;
      since?: string;
      offset?: number;
      limit?: number;
      filters?: Record<string, string | string[]>;
    } = {},
    options?: RequestOptions,
  ): Promise<InboxPage> {
    const search = new URLSearchParams();
    for (const key of ['event_type', 'object', 'since', 'offset', 'limit'] as const)
      if (query[key] !== undefined) search.set(key, String(query[key]));
    for (const [key, value] of Object.entries(query.filters ?? {}))
      for (const item of Array.isArray(value) ? value : [value]) search.append(key, item);
    const text = search.toString();
    return this.client.call<InboxPage>('GET', `${LAB}/inbox${text ? `?${text}` : ''}`, undefined, options);
  }

  async show(id: string, options?: RequestOptions): Promise<Capture> {
    return (
      await this.client.call<ReplyData<'getCapture'>>(
        'GET',
        `${LAB}/inbox/captures/${encodeURIComponent(id)}`,
        undefined,
        options,
      )
    ).capture;
  }

  async clear(options?: RequestOptions): Promise<ReplyData<'clearInbox'>> {
    return this.client.call<ReplyData<'clearInbox'>>('DELETE', `${LAB}/inbox`, undefined, options);
  }

  /** The endpoints whose deliveries are captured too. */
  async taps(options?: RequestOptions): Promise<string[]> {
    return (await this.client.call<ReplyData<'listInboxTaps'>>('GET', `${LAB}/inbox/taps`, undefined, options)).taps;
  }

  async tap(endpoint: string, options?: RequestOptions): Promise<string[]> {
    return (await this.client.call<ReplyData<'tapEndpoint'>>('POST', `${LAB}/inbox/taps`, { endpoint }, options)).taps;
  }

  async untap(endpoint: string, options?: RequestOptions): Promise<string[]> {
    return (
      await this.client.call<ReplyData<'untapEndpoint'>>('POST', `${LAB}/inbox/taps/remove`, { endpoint }, options)
    ).taps;
  }
}

/** Sandbox lab: fault rules on deliveries and rails (docs/lab.md). Live mode refuses them (403 900101). */
export class FaultsApi {
  constructor(private readonly client: Caller) {}

  async add(rule: FaultRuleInput, options?: RequestOptions): Promise<FaultRule> {
    return (await this.client.call<ReplyData<'addFaultRule'>>('POST', `${LAB}/faults`, rule, options)).rule;
  }

  async list(options?: RequestOptions): Promise<FaultRule[]> {
    return (await this.client.call<ReplyData<'listFaultRules'>>('GET', `${LAB}/faults`, undefined, options)).rules;
  }

  async remove(id: string, options?: RequestOptions): Promise<ReplyData<'removeFaultRule'>> {
    return this.client.call<ReplyData<'removeFaultRule'>>(
      'DELETE',
      `${LAB}/faults/${encodeURIComponent(id)}`,
      undefined,
      options,
    );
  }
}
