/**
 * Out-of-order delivery: the attempts an `--out-of-order WINDOW_MS` rule applies to are held for the window from the
 * first of them, then sent newest event first, one after another (each once the one before it is answered), while
 * attempts the rule does not take go out at once. Held in this process's memory: a window open when the process stops
 * is dropped with the claims, and those deliveries are attempted again.
 */
export class OutOfOrderWindows {
  private readonly open = new Map<string, Window>();

  /** A place in the rule's current window (a new one when none is open): its turn, and what to call when sent. */
  join(ruleId: string, windowMs: number, eventId: string): { turn: Promise<void>; done: () => void } {
    let window = this.open.get(ruleId);
    if (!window) {
      const created: Window = { members: [] };
      window = created;
      this.open.set(ruleId, created);
      setTimeout(() => {
        this.open.delete(ruleId);
        release(created);
      }, windowMs).unref();
    }
    let go!: () => void;
    const turn = new Promise<void>((resolve) => {
      go = resolve;
    });
    const member: Member = { eventId, go, done: () => undefined };
    window.members.push(member);
    return { turn, done: () => member.done() };
  }
}

interface Member {
  eventId: string;
  go: () => void;
  done: () => void;
}

interface Window {
  members: Member[];
}

/** Newest event first (event ids sort in the order events were made), each after the one before it. */
function release(window: Window): void {
  const order = [...window.members].sort((a, b) => (a.eventId < b.eventId ? 1 : a.eventId > b.eventId ? -1 : 0));
  const next = (index: number) => {
    const member = order[index];
    if (!member) return;
    let finished = false;
    member.done = () => {
      if (finished) return;
      finished = true;
      next(index + 1);
    };
    member.go();
  };
  next(0);
}
