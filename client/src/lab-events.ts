import type { Opener } from './calls.js';

/** One event of the merchant's stream: `body` is the exact body a delivery carries. */
export interface StreamedEvent {
  event_id: string;
  type: string;
  body: string;
  /** With `forwardTo`: the headers of a real delivery to that URL, signed with the app's webhook key. */
  headers?: Record<string, string>;
}

export interface EventStreamQuery {
  /** Resume after this event id. */
  after?: string;
  /** Without `after`, or when it names no event any more: start from this time (RFC 3339). */
  since?: string;
  /** Event types or patterns, comma-separated: `order.*,payout.settled`. */
  events?: string;
  forwardTo?: string;
  /** The server ends the stream after this long (1 to 3600, 3600 by default). */
  maxSeconds?: number;
  signal?: AbortSignal;
  /**
   * Ends the connection (with an error) when nothing, not even the server's heartbeat (every 15 s), came for this long:
   * a connection left half-open. 45 s by default; 0 waits for ever.
   */
  idleMs?: number;
}

/** Sandbox lab: the merchant's events as they happen (docs/lab.md). Live mode refuses it (403 900101). */
export class EventsApi {
  constructor(private readonly client: Opener) {}

  /**
   * Opens one connection; its events come as they happen, until the server ends it (`maxSeconds`, a restart) or
   * `signal` aborts: `for await (const event of await paygate.events.open({events: 'order.*'}))`. A connection that
   * breaks throws; reconnect with `after` set to the last event id seen (what `paygate listen` does).
   */
  async open(query: EventStreamQuery = {}): Promise<AsyncIterable<StreamedEvent>> {
    const search = new URLSearchParams();
    if (query.after !== undefined) search.set('after', query.after);
    if (query.since !== undefined) search.set('since', query.since);
    if (query.events !== undefined) search.set('events', query.events);
    if (query.forwardTo !== undefined) search.set('forward_to', query.forwardTo);
    if (query.maxSeconds !== undefined) search.set('max_seconds', String(query.maxSeconds));
    const text = search.toString();
    const idle = new AbortController();
    const signal = query.signal ? AbortSignal.any([query.signal, idle.signal]) : idle.signal;
    const response = await this.client.open(`/svc/sandbox/api/v1/events/stream${text ? `?${text}` : ''}`, { signal });
    return readEvents(response, idle, query.idleMs ?? 45_000);
  }
}

async function* readEvents(response: Response, idle: AbortController, idleMs: number): AsyncGenerator<StreamedEvent> {
  if (!response.body) return;
  const decoder = new TextDecoder();
  let buffer = '';
  let timer: ReturnType<typeof setTimeout> | undefined;
  const watch = () => {
    if (idleMs <= 0) return;
    clearTimeout(timer);
    timer = setTimeout(() => idle.abort(new Error(`nothing came for ${idleMs} ms: the connection is gone`)), idleMs);
  };
  watch();
  try {
    yield* parse();
  } finally {
    clearTimeout(timer);
  }

  async function* parse(): AsyncGenerator<StreamedEvent> {
    for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
      watch();
      buffer += decoder.decode(chunk, { stream: true });
      for (let end = buffer.indexOf('\n\n'); end !== -1; end = buffer.indexOf('\n\n')) {
        const block = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        const data = block
          .split('\n')
          .filter((line) => line.startsWith('data:'))
          .map((line) => line.slice(5).replace(/^ /, ''))
          .join('\n');
        if (data !== '') yield JSON.parse(data) as StreamedEvent;
      }
    }
  }
}
