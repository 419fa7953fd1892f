import { PaygateError, type StreamedEvent } from '@paygate/client';
import { defineCommand } from '../../cli/command.js';
import { CommandFailure } from '../../cli/failures.js';
import { LAB_OPTIONS, labClient } from '../cli/lab-client.js';

/** How many event ids a listener remembers, to drop what a reconnection sends again. */
const REMEMBERED = 100_000;
const MAX_BACKOFF_MS = 30_000;

export const LISTEN_COMMAND = defineCommand({
  name: 'listen',
  summary: "stream the merchant's events as they happen, and forward them to a local receiver",
  description:
    "Reads the running server's event stream (server-sent events; nothing else on the network). With --json each event " +
    'is printed as one line: the exact body a delivery carries. With --forward-to each is posted there with the headers ' +
    "of a real delivery (X-Event-ID, and a signature that verifies with the app's webhook public key), and the " +
    "receiver's status and the start of its answer are printed (on stderr with --json). When the server goes away it " +
    'reconnects, with backoff, for as long as it runs, and resumes after the last event it saw. Ctrl-C stops it.',
  options: {
    ...LAB_OPTIONS,
    events: { type: 'string', value: 'TYPES', description: 'only these event types or patterns (order.paid,payout.*)' },
    'forward-to': { type: 'string', value: 'URL', description: 'post each event there, as a delivery would' },
  },
  async run({ options }, deps) {
    const forwardTo = options['forward-to'];
    if (forwardTo !== undefined && !(/^https?:\/\/[^/]/i.test(forwardTo) && URL.canParse(forwardTo)))
      throw new CommandFailure('--forward-to must be an http:// or https:// URL');
    const lab = await labClient(options, deps, { streaming: true });
    const stopping = new AbortController();
    const stop = () => stopping.abort();
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
    const seen = new Set<string>();
    let after: string | undefined;
    // Where a reconnection starts when no event was seen yet (or the last one is gone, to a reset): what happened
    // since the listener started, a little before too (the server looks back), what was seen dropped here.
    const since = new Date().toISOString();
    let failures = 0;
    const say = (line: string) => process.stderr.write(`${line}\n`);
    try {
      while (!stopping.signal.aborted) {
        try {
          const stream = await lab.client.events.open({
            after,
            since,
            events: options.events,
            forwardTo,
            signal: stopping.signal,
          });
          say(
            failures > 0
              ? `Reconnected to ${lab.baseUrl}${after ? `, resuming after ${after}` : ''}.`
              : `Listening to ${lab.baseUrl}${options.events ? ` for ${options.events}` : ''}${forwardTo ? `, forwarding to ${forwardTo}` : ''} (Ctrl-C to stop).`,
          );
          failures = 0;
          for await (const event of stream) {
            if (seen.has(event.event_id)) continue;
            remember(seen, event.event_id);
            after = event.event_id;
            if (options.json) process.stdout.write(`${event.body}\n`);
            else process.stdout.write(`${new Date().toISOString()}  ${event.type.padEnd(28)} ${event.event_id}\n`);
            if (forwardTo !== undefined) {
              const answer = await forward(forwardTo, event);
              (options.json ? say : (line: string) => process.stdout.write(`${line}\n`))(`  -> ${answer}`);
            }
          }
          if (stopping.signal.aborted) break;
          // The server ended the stream (its time limit, or it is stopping): go straight back.
          failures = Math.max(failures, 1);
          say('The server ended the stream; reconnecting.');
        } catch (error) {
          if (stopping.signal.aborted) break;
          // A refusal (live mode, a bad signature, a bad option) is said once, as every refusal is.
          if (error instanceof PaygateError && error.status < 500 && error.status !== 429) throw error;
          failures += 1;
          const wait = Math.min(MAX_BACKOFF_MS, 250 * 2 ** (failures - 1));
          say(`Lost the connection to ${lab.baseUrl} (${reason(error)}); reconnecting in ${wait} ms.`);
          await sleepUnlessStopped(wait, stopping.signal);
        }
      }
    } finally {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
    }
  },
});

function remember(seen: Set<string>, id: string): void {
  seen.add(id);
  if (seen.size > REMEMBERED) seen.delete(seen.values().next().value!);
}

/** Posts the event as a delivery posts it; the receiver's status and the start of its answer, or why none came. */
async function forward(url: string, event: StreamedEvent): Promise<string> {
  try {
    const response = await fetch(url, {
      method: 'POST',
      headers: event.headers ?? { 'content-type': 'application/json' },
      body: event.body,
      redirect: 'manual',
      signal: AbortSignal.timeout(10_000),
    });
    const text = (await response.text()).replace(/\s+/g, ' ').trim();
    return `${response.status}${text ? ` ${text.slice(0, 200)}` : ''}`;
  } catch (error) {
    return `no answer: ${reason(error)}`;
  }
}

function reason(error: unknown): string {
  const cause = (error as { cause?: { code?: string; message?: string } }).cause;
  return cause?.code ?? cause?.message ?? (error as Error).message ?? String(error);
}

function sleepUnlessStopped(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const stop = () => {
      clearTimeout(timer);
      resolve();
    };
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', stop);
      resolve();
    }, ms);
    signal.addEventListener('abort', stop, { once: true });
  });
}
