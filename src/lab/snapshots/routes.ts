import { clientCall } from '../../http/examples.js';
import { defineRoute } from '../../http/route.js';
import { iso } from '../../platform/clock.js';
import { LAB_ERRORS } from '../errors.js';
import { LAB_BASE, LAB_TAGS, labRoute } from '../lab-routes.js';
import { presentSnapshot, type SnapshotReply } from './present.js';
import { type ResetOptions, resetWorld } from './reset.js';
import {
  DeletedSnapshotData,
  ResetBody,
  ResetData,
  RestoredSnapshotData,
  SavedSnapshotData,
  SaveSnapshotBody,
  SnapshotListData,
  SnapshotParams,
} from './schemas.js';
import { deleteSnapshot, listSnapshots, restoreSnapshot, saveSnapshot } from './snapshots.js';

const EXAMPLE: SnapshotReply = {
  name: 'before-refunds',
  business_at: '2026-11-21T08:00:00.000Z',
  row_count: 1843,
  byte_count: 912_406,
  created_at: '2026-11-21T08:00:00.000Z',
};

/** The reset's options from its body: a seed makes the merchant deterministic; `deterministic` alone, with the default. */
function resetOptions(body: { deterministic?: boolean; seed?: string }, serverSeed: string | undefined): ResetOptions {
  if (body.deterministic === false) return { deterministic: false };
  if (body.seed !== undefined) return { deterministic: { seed: body.seed } };
  if (body.deterministic === true) return { deterministic: { seed: serverSeed ?? DEFAULT_SEED } };
  return {};
}

/** The seed of `deterministic: true` without one, on a server without PAYGATE_DETERMINISTIC_SEED. */
const DEFAULT_SEED = 'paygate';

/** Named snapshots of the merchant's sandbox world, and reset (docs/lab.md, "Snapshots and reset"). */
export const SNAPSHOT_ROUTES = [
  labRoute(
    defineRoute({
      method: 'POST',
      url: `${LAB_BASE}/snapshots`,
      operationId: 'saveSandboxSnapshot',
      summary: "Save the merchant's whole sandbox world and its business clock under a name.",
      description:
        'Every row of every capability (objects, ledger, events and deliveries, due work, inbox captures, fault rules, ' +
        'idempotency keys) with the business time now. Names are per merchant; an existing one is refused unless `force`.',
      tags: LAB_TAGS,
      body: SaveSnapshotBody,
      data: SavedSnapshotData,
      errors: [LAB_ERRORS.snapshotExists, LAB_ERRORS.snapshotsFull],
      handler: ({ ctx, body }) => saveSnapshot(ctx, body),
      present: ({ snapshot, replaced }) => ({ snapshot: presentSnapshot(snapshot), replaced }),
      example: {
        request: { body: { name: 'before-refunds' } },
        reply: { snapshot: EXAMPLE, replaced: false },
        client: clientCall('labSnapshots.save', 'before-refunds'),
      },
    }),
  ),
  labRoute(
    defineRoute({
      method: 'GET',
      url: `${LAB_BASE}/snapshots`,
      operationId: 'listSandboxSnapshots',
      summary: "The merchant's snapshots, by name.",
      tags: LAB_TAGS,
      data: SnapshotListData,
      errors: [],
      handler: async ({ ctx }) => ({ snapshots: (await listSnapshots(ctx)).map(presentSnapshot) }),
      example: { request: {}, reply: { snapshots: [EXAMPLE] }, client: clientCall('labSnapshots.list') },
    }),
  ),
  labRoute(
    defineRoute({
      method: 'POST',
      url: `${LAB_BASE}/snapshots/:name/restore`,
      operationId: 'restoreSandboxSnapshot',
      summary: "Put the merchant's world and business clock back as a snapshot has them, in one transaction.",
      description:
        "Every row of the merchant's world is replaced by the snapshot's, the business clock is set back to the " +
        "snapshot's time, and the snapshot's due work (jobs, webhook deliveries) is due again on it. Deliveries in " +
        "flight are dropped. The merchant's apps, inbox taps and snapshots, and every other merchant, are untouched.",
      tags: LAB_TAGS,
      params: SnapshotParams,
      data: RestoredSnapshotData,
      errors: [LAB_ERRORS.snapshotNotFound],
      handler: ({ ctx, params }) => restoreSnapshot(ctx, params.name),
      present: (restored) => ({
        snapshot: presentSnapshot(restored.snapshot),
        removed_rows: restored.removed,
        restored_rows: restored.restored,
        now: iso(restored.now),
      }),
      example: {
        request: { params: { name: 'before-refunds' } },
        reply: { snapshot: EXAMPLE, removed_rows: 2210, restored_rows: 1843, now: '2026-11-21T08:00:00.000Z' },
        client: clientCall('labSnapshots.restore', 'before-refunds'),
      },
    }),
  ),
  labRoute(
    defineRoute({
      method: 'DELETE',
      url: `${LAB_BASE}/snapshots/:name`,
      operationId: 'deleteSandboxSnapshot',
      summary: 'Delete a snapshot.',
      tags: LAB_TAGS,
      params: SnapshotParams,
      data: DeletedSnapshotData,
      errors: [LAB_ERRORS.snapshotNotFound],
      handler: ({ ctx, params }) => deleteSnapshot(ctx, params.name),
      present: (snapshot) => ({ name: snapshot.name, deleted: true }),
      example: {
        request: { params: { name: 'before-refunds' } },
        reply: { name: 'before-refunds', deleted: true },
        client: clientCall('labSnapshots.delete', 'before-refunds'),
      },
    }),
  ),
  labRoute(
    defineRoute({
      method: 'POST',
      url: `${LAB_BASE}/reset`,
      operationId: 'resetSandbox',
      summary:
        "Empty the merchant's sandbox world and set its business clock back: to wall time, or, deterministic, to a fixed start.",
      description:
        'Objects, ledger, events and deliveries, due work, inbox captures, fault rules and idempotency keys go; the ' +
        'merchant is then as a freshly created one (its first settlement scheduled). Its apps, keys, webhook endpoints, inbox taps and snapshots stay. ' +
        'With `deterministic` (or a `seed`) the same calls then give byte-identical replies, webhook bodies and receipts, run after run.',
      tags: LAB_TAGS,
      body: ResetBody,
      bodyOptional: true,
      data: ResetData,
      errors: [],
      handler: ({ ctx, body }) => resetWorld(ctx, resetOptions(body, ctx.config.deterministicSeed)),
      present: (reset) => ({
        removed_rows: reset.removed,
        now: iso(reset.now),
        deterministic: reset.seed !== undefined,
        seed: reset.seed ?? null,
      }),
      example: {
        request: { body: { deterministic: true, seed: 'ci-run' } },
        reply: { removed_rows: 2210, now: '2026-01-01T00:00:00.000Z', deterministic: true, seed: 'ci-run' },
        client: clientCall('labSnapshots.reset', { deterministic: true, seed: 'ci-run' }),
      },
    }),
  ),
];
