import Type from 'typebox';
import { SNAPSHOT_NAME } from './snapshots.js';

const Name = Type.String({
  pattern: SNAPSHOT_NAME,
  description: "The snapshot's name: 1 to 64 letters, digits, dots, underscores and hyphens; per merchant.",
});

export const SnapshotSchema = Type.Object({
  name: Type.String(),
  business_at: Type.String({
    description: "The merchant's business time when it was saved: a restore sets the clock back to it.",
  }),
  row_count: Type.Integer({ description: "Rows of the merchant's world it holds." }),
  byte_count: Type.Integer({ description: 'Its stored size, in bytes of JSON.' }),
  created_at: Type.String({ description: 'Wall time it was saved.' }),
});

export const SaveSnapshotBody = Type.Object({
  name: Name,
  force: Type.Optional(
    Type.Boolean({
      description: 'Replace a snapshot of this name; without it, an existing name is refused (409 900502).',
    }),
  ),
});

export const SnapshotParams = Type.Object({ name: Name });

export const SavedSnapshotData = Type.Object({
  snapshot: SnapshotSchema,
  replaced: Type.Boolean({ description: 'A snapshot of this name was there, and this one replaced it.' }),
});

export const SnapshotListData = Type.Object({ snapshots: Type.Array(SnapshotSchema) });

export const RestoredSnapshotData = Type.Object({
  snapshot: SnapshotSchema,
  removed_rows: Type.Integer({ description: "Rows of the merchant's world removed." }),
  restored_rows: Type.Integer({ description: 'Rows put back from the snapshot.' }),
  now: Type.String({ description: "The merchant's business time once restored: the snapshot's." }),
});

export const DeletedSnapshotData = Type.Object({ name: Type.String(), deleted: Type.Boolean() });

export const ResetBody = Type.Object({
  deterministic: Type.Optional(
    Type.Boolean({
      description:
        'Make the merchant deterministic (docs/lab.md, "Deterministic runs"): identifiers from a sequence seeded by ' +
        '`seed`, the business clock standing still at the documented start (midnight UTC on 1 January 2026) until moved. `false`: random ' +
        "identifiers, the clock running with wall time. Absent: deterministic with the server's " +
        'PAYGATE_DETERMINISTIC_SEED when it has one, unless `seed` is given.',
    }),
  ),
  seed: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 200,
      description:
        "The seed of a deterministic merchant's identifiers (implies `deterministic`); the server's " +
        'PAYGATE_DETERMINISTIC_SEED, or `paygate`, when absent.',
    }),
  ),
});

export const ResetData = Type.Object({
  removed_rows: Type.Integer({ description: "Rows of the merchant's world removed." }),
  now: Type.String({
    description: "The merchant's business time once reset: wall time, or the fixed start of a deterministic merchant.",
  }),
  deterministic: Type.Boolean({ description: "Whether the merchant's identifiers and clock are now deterministic." }),
  seed: Type.Union([Type.String(), Type.Null()], { description: 'The seed of its identifiers, when deterministic.' }),
});
