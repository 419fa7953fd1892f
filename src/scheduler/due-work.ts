import type { DueWork } from '../context/context.js';

/**
 * Several kinds of due work (scheduled jobs, webhook deliveries) seen as one: what the sandbox clock runs as it
 * moves. Running what is due repeats until none of them has anything left, since one kind's work makes the
 * other's (a settlement job emits events; nothing yet works the other way, but the loop does not assume it).
 */
export function combineDueWork(...runners: DueWork[]): DueWork {
  return {
    async runDue(filter) {
      let total = 0;
      for (;;) {
        let ran = 0;
        for (const runner of runners) ran += await runner.runDue(filter);
        total += ran;
        if (ran === 0) return total;
      }
    },
    async realign(db, merchantId, clock, dueBy) {
      for (const runner of runners) await runner.realign(db, merchantId, clock, dueBy);
    },
    async nextDue(merchantId) {
      const next = await Promise.all(runners.map((runner) => runner.nextDue(merchantId)));
      return next.reduce<Awaited<ReturnType<DueWork['nextDue']>>>((earliest, candidate) => {
        if (!candidate) return earliest;
        if (!earliest || candidate.dueAt < earliest.dueAt) return candidate;
        if (candidate.dueAt === earliest.dueAt && earliest.heldUntil === undefined) return candidate;
        return earliest;
      }, undefined);
    },
  };
}
