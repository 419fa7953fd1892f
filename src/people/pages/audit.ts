import type { SignedInScreen } from '../../web/dashboard/screen.js';
import { type Html, html } from '../../web/html.js';
import { type AuditEntry, listAudit } from '../audit.js';

export const AUDIT_PATH = '/dashboard/audit';
const PAGE_SIZE = 50;

export function auditTable(entries: readonly AuditEntry[]): Html {
  return html`<table class="list" data-testid="audit">
<thead><tr><th>When (UTC)</th><th>Who</th><th>What</th><th>About</th><th>From</th></tr></thead>
<tbody>
${entries.map(
  (entry) => html`<tr data-testid="audit-entry">
<td data-label="When">${new Date(entry.at).toISOString().replace('T', ' ').slice(0, 19)}</td>
<td data-label="Who">${entry.email}</td>
<td data-label="What" data-testid="action">${entry.action}</td>
<td data-label="About">${entry.subject ?? ''}</td>
<td data-label="From">${entry.address}</td>
</tr>`,
)}
</tbody>
</table>`;
}

/** The merchant's audit log: every action taken in its dashboard (and by the operator on its people), newest first. */
export const AUDIT_SCREENS: readonly SignedInScreen[] = [
  {
    method: 'GET',
    url: AUDIT_PATH,
    access: 'viewer',
    menu: 'Audit log',
    async handle(ctx, request) {
      const before = request.query.before;
      const entries = await listAudit(ctx, request.signedIn.merchantId, {
        ...(before !== undefined && /^[0-9a-f-]{36}$/.test(before) && { before }),
        limit: PAGE_SIZE,
      });
      const older = entries.length === PAGE_SIZE ? entries[entries.length - 1]!.id : undefined;
      return {
        status: 200,
        page: {
          title: 'Audit log',
          body: html`<h1>Audit log</h1>
${entries.length === 0 ? html`<p>Nothing yet.</p>` : auditTable(entries)}
${older !== undefined && html`<p><a href="${AUDIT_PATH}?before=${older}">Older entries</a></p>`}`,
        },
      };
    },
  },
];
