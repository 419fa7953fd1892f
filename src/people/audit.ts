import type { PlatformContext } from '../context/context.js';
import { newSortableId } from '../platform/ids.js';
import { type AuditRow, insertAudit, listAuditOf } from './store.js';

/** Who acted, as the audit log names them: a signed-in person, or the operator at the command line. */
export interface Acting {
  person?: { id: string; email: string };
  /** The address the request came from (`command line` for the operator). */
  address: string;
}

export const OPERATOR: Acting = { address: 'command line' };

export interface AuditEntry {
  id: string;
  email: string;
  action: string;
  subject: string | null;
  address: string;
  at: number;
}

/** Writes one line of the merchant's audit log: in the caller's transaction, when it has one. */
export async function recordAction(
  ctx: PlatformContext,
  merchantId: string,
  by: Acting,
  what: { action: string; subject?: string },
): Promise<void> {
  const at = ctx.wallClock.now().getTime();
  await insertAudit(ctx.db, {
    id: newSortableId(at),
    merchant_id: merchantId,
    person_id: by.person?.id ?? null,
    email: by.person?.email ?? 'operator',
    action: what.action,
    subject: what.subject ?? null,
    address: by.address,
    at,
  });
}

/** The merchant's audit log, newest first: a page of `limit` entries, before the entry `before` when given. */
export async function listAudit(
  ctx: PlatformContext,
  merchantId: string,
  page: { before?: string; limit: number },
): Promise<AuditEntry[]> {
  return (await listAuditOf(ctx.db, merchantId, page)).map(toEntry);
}

function toEntry(row: AuditRow): AuditEntry {
  return {
    id: row.id,
    email: row.email,
    action: row.action,
    subject: row.subject,
    address: row.address,
    at: Number(row.at),
  };
}
