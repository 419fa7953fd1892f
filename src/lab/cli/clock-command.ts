import { defineCommand } from '../../cli/command.js';
import { print } from '../../cli/output.js';
import { durationSeconds } from './duration.js';
import { LAB_OPTIONS, labClient } from './lab-client.js';

/** `paygate sandbox clock [--advance 1d]`: the merchant's business clock, read or moved (the sandbox's own route). */
export const CLOCK_COMMAND = defineCommand({
  name: 'clock',
  summary: "read the merchant's business clock, or move it forward and run what falls due on the way",
  options: {
    ...LAB_OPTIONS,
    advance: { type: 'string', value: 'DURATION', description: 'move it this far forward: 90s, 10m, 2h, 30d' },
  },
  async run({ options }, deps) {
    const seconds = options.advance === undefined ? undefined : durationSeconds(options.advance, '--advance');
    // A long move runs everything due on the way: give it the time a sandbox clock move may take.
    const lab = await labClient({ ...options, timeout: options.timeout === '30' ? '600' : options.timeout }, deps);
    const clock = await lab.call((client) =>
      seconds === undefined ? client.sandbox.clock() : client.sandbox.advanceClock(seconds),
    );
    print(
      options,
      clock,
      () => `${clock.now} (${clock.business_date}, ${clock.timezone}; ${clock.offset_seconds} s ahead of wall time)`,
    );
  },
});
