import { defineCommand, defineCommandGroup } from '../../cli/command.js';
import { print, UsageError } from '../../cli/output.js';
import { confirmed, LAB_OPTIONS, type LabOptions, labClient, YES_OPTION } from '../cli/lab-client.js';

const NAME = [
  { name: 'name', description: 'the snapshot, by name (1 to 64 letters, digits, dots, underscores, hyphens)' },
] as const;

/** Asked on a terminal before what cannot be taken back; declined, nothing is sent and the command fails. */
async function goAhead(question: string, options: LabOptions & { yes: boolean }): Promise<boolean> {
  if (await confirmed(question, options.yes)) return true;
  process.stderr.write('Nothing done.\n');
  return false;
}

const describe = (s: { name: string; business_at: string; row_count: number; byte_count: number }) =>
  `${s.name}  business time ${s.business_at}  ${s.row_count} rows  ${s.byte_count} bytes`;

const SAVE = defineCommand({
  name: 'save',
  summary: "save the merchant's whole sandbox world and its business clock under NAME",
  description: 'An existing name is refused (900502) unless --force, which replaces it.',
  arguments: NAME,
  options: { ...LAB_OPTIONS, force: { type: 'boolean', description: 'replace a snapshot of this name' } },
  async run({ options, args }, deps) {
    const lab = await labClient(options, deps);
    const saved = await lab.call((client) => client.labSnapshots.save(args.name, { force: options.force }));
    print(options, saved, () => `${saved.replaced ? 'Replaced' : 'Saved'} ${describe(saved.snapshot)}`);
  },
});

const RESTORE = defineCommand({
  name: 'restore',
  summary: "put the merchant's world and business clock back as snapshot NAME has them",
  description:
    "Every row of the merchant's world is replaced, in one transaction; deliveries in flight are dropped, and the " +
    "snapshot's due work runs again. Asks first on a terminal (--yes skips the question); without one it goes ahead.",
  arguments: NAME,
  options: { ...LAB_OPTIONS, yes: YES_OPTION },
  async run({ options, args }, deps) {
    const lab = await labClient(options, deps);
    if (!(await goAhead(`Replace the merchant's whole sandbox world with snapshot ${args.name}?`, options))) return 1;
    const restored = await lab.call((client) => client.labSnapshots.restore(args.name));
    print(
      options,
      restored,
      () =>
        `Restored ${restored.snapshot.name}: ${restored.restored_rows} rows (${restored.removed_rows} removed); business time ${restored.now}`,
    );
  },
});

const LIST = defineCommand({
  name: 'list',
  summary: "list the merchant's snapshots, by name",
  options: LAB_OPTIONS,
  async run({ options }, deps) {
    const lab = await labClient(options, deps);
    const snapshots = await lab.call((client) => client.labSnapshots.list());
    print(options, { snapshots }, () =>
      snapshots.length === 0 ? 'No snapshots.' : snapshots.map(describe).join('\n'),
    );
  },
});

const DELETE = defineCommand({
  name: 'delete',
  summary: 'delete snapshot NAME',
  description: 'Asks first on a terminal (--yes skips the question); without one it goes ahead.',
  arguments: NAME,
  options: { ...LAB_OPTIONS, yes: YES_OPTION },
  async run({ options, args }, deps) {
    const lab = await labClient(options, deps);
    if (!(await goAhead(`Delete snapshot ${args.name}?`, options))) return 1;
    const deleted = await lab.call((client) => client.labSnapshots.delete(args.name));
    print(options, deleted, () => `Deleted ${deleted.name}.`);
  },
});

export const SNAPSHOT_COMMAND = defineCommandGroup({
  name: 'snapshot',
  summary: "named snapshots of the merchant's sandbox world and business clock: save, restore, list, delete",
  commands: [SAVE, RESTORE, LIST, DELETE],
});

export const RESET_COMMAND = defineCommand({
  name: 'reset',
  summary: "empty the merchant's sandbox world and set its business clock back (to wall time, or deterministic)",
  description:
    'Objects, ledger, events and deliveries, due work, inbox captures, fault rules and idempotency keys go, and the ' +
    'merchant is as a new one; its apps, keys, webhook endpoints, inbox taps and snapshots stay. With --deterministic ' +
    '(or --seed S) its identifiers then come from a sequence seeded by S and its clock stands still at ' +
    '2026-01-01T00:00:00Z until moved: the same calls give the same replies, webhook bodies and receipts every run ' +
    '(docs/lab.md, "Deterministic runs"). --random makes it random again on a server started with ' +
    'PAYGATE_DETERMINISTIC_SEED. Asks first on a terminal (--yes skips the question); without one it goes ahead.',
  options: {
    ...LAB_OPTIONS,
    deterministic: { type: 'boolean', description: 'seeded identifiers and a clock that stands still until moved' },
    seed: { type: 'string', value: 'SEED', description: "the identifiers' seed (implies --deterministic)" },
    random: { type: 'boolean', description: 'random identifiers and a clock that runs with wall time' },
    yes: YES_OPTION,
  },
  async run({ options }, deps) {
    if (options.random && (options.deterministic || options.seed !== undefined))
      throw new UsageError('--random goes with neither --deterministic nor --seed');
    const lab = await labClient(options, deps);
    if (!(await goAhead("Empty the merchant's whole sandbox world?", options))) return 1;
    const body = {
      ...((options.deterministic || options.random) && { deterministic: !options.random }),
      ...(options.seed !== undefined && { seed: options.seed }),
    };
    const reset = await lab.call((client) => client.labSnapshots.reset(body));
    print(options, reset, () =>
      reset.deterministic
        ? `Reset: ${reset.removed_rows} rows removed; deterministic with seed ${JSON.stringify(reset.seed)}, business time ${reset.now} (standing still until moved)`
        : `Reset: ${reset.removed_rows} rows removed; business time ${reset.now} (wall time)`,
    );
  },
});
