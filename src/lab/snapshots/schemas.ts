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

export const ResetData = Type.Object({
  removed_rows: Type.Integer({ description: "Rows of the merchant's world removed." }),
  now: Type.String({ description: "The merchant's business time once reset: wall time." }),
});
