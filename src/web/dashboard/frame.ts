import { roleAllows } from '../../platform/roles.js';
import { type Html, html } from '../html.js';
import { documentHead } from '../layout.js';
import type { DashboardPage, SignedIn, SignedInScreen } from './screen.js';

export const DASHBOARD_STYLESHEET_PATH = '/dashboard/assets/dashboard.css';
export const HOME_PATH = '/dashboard';
export const SIGN_IN_PATH = '/dashboard/sign-in';
export const SIGN_OUT_PATH = '/dashboard/sign-out';

/** The hidden field every form of the dashboard carries: the session's form token (CSRF). */
export const FORM_FIELD = '_form';

export function formTokenField(token: string): Html {
  return html`<input type="hidden" name="${FORM_FIELD}" value="${token}">`;
}

/** A signed-in page: who is signed in, the navigation their role may use, sign-out, and the page's own content. */
export function signedInPage(options: {
  page: DashboardPage;
  signedIn: SignedIn;
  menu: readonly SignedInScreen[];
  path: string;
  sandbox: boolean;
}): string {
  const { signedIn } = options;
  const items = options.menu.filter((screen) => roleAllows(signedIn.role, screen.access));
  return html`${documentHead({ title: `${options.page.title} · paygate`, stylesheet: DASHBOARD_STYLESHEET_PATH })}
<body>
${options.sandbox && html`<div class="sandbox" role="note">Sandbox: test mode, no real money moves.</div>`}
<header class="top">
<a class="brand" href="/dashboard">${signedIn.merchantName}</a>
<span class="who" data-testid="who">${signedIn.email} (${signedIn.role})</span>
<form method="post" action="${SIGN_OUT_PATH}">${formTokenField(signedIn.formToken)}<button type="submit">Sign out</button></form>
</header>
<nav class="menu" aria-label="Dashboard">
${items.map(
  (screen) =>
    html`<a href="${screen.url}"${screen.url === options.path ? html` aria-current="page"` : ''}>${screen.menu}</a>`,
)}
</nav>
<main>
${options.page.body}
</main>
</body>
</html>
`.text;
}

/** A page outside the frame (signing in, a refusal before sign-in). */
export function bareDashboardPage(options: { page: DashboardPage; sandbox: boolean }): string {
  return html`${documentHead({ title: `${options.page.title} · paygate`, stylesheet: DASHBOARD_STYLESHEET_PATH })}
<body>
${options.sandbox && html`<div class="sandbox" role="note">Sandbox: test mode, no real money moves.</div>`}
<main>
${options.page.body}
</main>
</body>
</html>
`.text;
}

/** A page that only says what went wrong. */
export function problemPage(title: string, message: string): DashboardPage {
  return {
    title,
    body: html`<h1>${title}</h1><p class="notice error" role="alert" data-testid="problem">${message}</p><p><a href="/dashboard">Back to the dashboard</a></p>`,
  };
}
