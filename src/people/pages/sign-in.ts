import type { Context, PlatformContext } from '../../context/context.js';
import { isAppError } from '../../platform/errors.js';
import { formTokenField, SIGN_IN_PATH, SIGN_OUT_PATH } from '../../web/dashboard/frame.js';
import type { PublicScreen, ScreenAnswer, SignedIn, SignedInScreen } from '../../web/dashboard/screen.js';
import { html } from '../../web/html.js';
import { PEOPLE_ERRORS } from '../errors.js';
import { type SessionRef, signIn, signOut, signOutEverywhere } from '../sessions.js';

export const SIGN_OUT_EVERYWHERE_PATH = '/dashboard/sign-out-everywhere';

/** Where to go after signing in: a dashboard address of this server, never another site. */
function nextOf(next: string | undefined): string {
  return next !== undefined && /^\/dashboard(?:[/?]|$)/.test(next) && !next.startsWith('//') ? next : '/dashboard';
}

function signInPage(options: { formToken: string; next: string; email?: string; problem?: string }): ScreenAnswer {
  return {
    status: options.problem === undefined ? 200 : 400,
    page: {
      title: 'Sign in',
      body: html`<section class="card signin">
<h1>Sign in to the dashboard</h1>
${options.problem !== undefined && html`<p class="notice error" role="alert" data-testid="problem">${options.problem}</p>`}
<form method="post" action="${SIGN_IN_PATH}">
${formTokenField(options.formToken)}
<input type="hidden" name="next" value="${options.next}">
<label for="email">Email address</label>
<input id="email" name="email" type="email" autocomplete="username" required value="${options.email ?? ''}">
<label for="password">Password</label>
<input id="password" name="password" type="password" autocomplete="current-password" required>
<button type="submit">Sign in</button>
</form>
</section>`,
    },
  };
}

export const SIGN_IN_SCREENS: ReadonlyArray<PublicScreen | SignedInScreen> = [
  {
    method: 'GET',
    url: SIGN_IN_PATH,
    access: 'anyone',
    async handle(_platform, request) {
      const next = nextOf(request.query.next);
      if (request.signedIn) return { redirect: next };
      return signInPage({ formToken: request.formToken, next });
    },
  },
  {
    method: 'POST',
    url: SIGN_IN_PATH,
    access: 'anyone',
    async handle(platform: PlatformContext, request) {
      const next = nextOf(request.form.next);
      const email = request.form.email ?? '';
      try {
        const { sessionId } = await signIn(platform, {
          email,
          password: request.form.password ?? '',
          address: request.address,
        });
        // Signed in again: the session the browser had ends (one browser, one session, its id new at each sign-in).
        if (request.signedIn) await signOut(platform, sessionRefOf(request.signedIn), request.address);
        return { redirect: next, startSession: sessionId };
      } catch (error) {
        if (isAppError(error, PEOPLE_ERRORS.signInRefused) || isAppError(error, PEOPLE_ERRORS.signInLimited)) {
          const answer = signInPage({ formToken: request.formToken, next, email, problem: error.message });
          return isAppError(error, PEOPLE_ERRORS.signInLimited) && 'page' in answer
            ? { ...answer, status: 429 }
            : answer;
        }
        throw error;
      }
    },
  },
  {
    method: 'POST',
    url: SIGN_OUT_PATH,
    access: 'viewer',
    async handle(ctx: Context, request) {
      await signOut(ctx, sessionRefOf(request.signedIn), request.address);
      return { redirect: SIGN_IN_PATH, endSession: true };
    },
  },
  {
    method: 'POST',
    url: SIGN_OUT_EVERYWHERE_PATH,
    access: 'viewer',
    async handle(ctx: Context, request) {
      await signOutEverywhere(ctx, sessionRefOf(request.signedIn), request.address);
      return { redirect: SIGN_IN_PATH, endSession: true };
    },
  },
];

/** The session a signed-in request came with, as the verbs that end sessions name it. */
export function sessionRefOf(signedIn: SignedIn): SessionRef {
  return {
    idHash: signedIn.sessionKey,
    personId: signedIn.personId,
    email: signedIn.email,
    merchantId: signedIn.merchantId,
  };
}
