import type { Static } from 'typebox';
import { iso } from '../../platform/clock.js';
import type { SnapshotSchema } from './schemas.js';
import type { SnapshotRow } from './snapshots.js';

export type SnapshotReply = Static<typeof SnapshotSchema>;

export function presentSnapshot(row: SnapshotRow): SnapshotReply {
  return {
    name: row.name,
    business_at: iso(row.business_at),
    row_count: row.row_count,
    byte_count: row.byte_count,
    created_at: iso(row.created_at),
  };
}
