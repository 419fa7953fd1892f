/** The gap between two releases of a window: far apart enough to arrive in that order, close enough to be quick. */
export const RELEASE_GAP_MS = 50;
/** The most attempts one window holds (what comes once it is full goes out at once): it ends within a claim. */
export const MAX_WINDOW_MEMBERS = 100;

/**
 * Out-of-order delivery: the attempts an `--out-of-order WINDOW_MS` rule applies to are held for the window from the
 * first of them, then sent newest event first, one every 50 ms, while attempts the rule does not take go out at once.
 * Held in this process's memory: a window open when the process stops is dropped with its claims, and those
 * deliveries are attempted again.
 */
export class OutOfOrderWindows {
  private readonly open = new Map<string, Member[]>();

  /** A place in the rule's current window (a new one when none is open): resolves when it is its turn to go. */
  join(ruleId: string, windowMs: number, eventId: string): Promise<void> | undefined {
    let members = this.open.get(ruleId);
    if (!members) {
      const created: Member[] = [];
      members = created;
      this.open.set(ruleId, created);
      setTimeout(() => {
        this.open.delete(ruleId);
        release(created);
      }, windowMs).unref();
    }
    if (members.length >= MAX_WINDOW_MEMBERS) return undefined;
    const list = members;
    return new Promise<void>((go) => list.push({ eventId, go }));
  }
}

interface Member {
  eventId: string;
  go: () => void;
}

/** Newest event first (event ids sort in the order events were made), one every RELEASE_GAP_MS. */
function release(members: Member[]): void {
  const order = [...members].sort((a, b) => (a.eventId < b.eventId ? 1 : a.eventId > b.eventId ? -1 : 0));
  order.forEach((member, index) => {
    if (index === 0) member.go();
    else setTimeout(member.go, index * RELEASE_GAP_MS).unref();
  });
}
