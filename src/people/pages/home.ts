import { formTokenField } from '../../web/dashboard/frame.js';
import type { SignedInScreen } from '../../web/dashboard/screen.js';
import { html } from '../../web/html.js';
import { listAudit } from '../audit.js';
import { AUDIT_PATH, auditTable } from './audit.js';
import { SIGN_OUT_EVERYWHERE_PATH } from './sign-in.js';

/** The dashboard's home: the latest activity of the merchant's people, and the signed-in person's own account. */
export const HOME_SCREENS: readonly SignedInScreen[] = [
  {
    method: 'GET',
    url: '/dashboard',
    access: 'viewer',
    menu: 'Home',
    async handle(ctx, request) {
      const { signedIn } = request;
      const latest = await listAudit(ctx, signedIn.merchantId, { limit: 10 });
      return {
        status: 200,
        page: {
          title: 'Home',
          body: html`<h1>${signedIn.merchantName}</h1>
<h2>Latest activity</h2>
${auditTable(latest)}
<p><a href="${AUDIT_PATH}">The whole audit log</a></p>
<section class="card">
<h2>Your account</h2>
<p>Signed in as ${signedIn.email}, ${signedIn.role}.</p>
<form method="post" action="${SIGN_OUT_EVERYWHERE_PATH}">
${formTokenField(signedIn.formToken)}
<button type="submit" data-testid="sign-out-everywhere">Sign out everywhere</button>
</form>
<p class="muted">Ends every session of yours, on every browser and device.</p>
</section>`,
        },
      };
    },
  },
];
