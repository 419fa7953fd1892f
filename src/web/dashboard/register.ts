import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { merchantContext, type PlatformContext } from '../../context/context.js';
import { AppError, isAppError, PLATFORM_ERRORS } from '../../platform/errors.js';
import { roleAllows } from '../../platform/roles.js';
import { findMerchant, type Merchant } from '../../platform/tenants.js';
import { preparePageScope } from '../pages.js';
import {
  bareDashboardPage,
  DASHBOARD_STYLESHEET_PATH,
  FORM_FIELD,
  HOME_PATH,
  problemPage,
  SIGN_IN_PATH,
  signedInPage,
} from './frame.js';
import type { DashboardPage, DashboardSessions, Screen, ScreenAnswer, SignedIn, SignedInScreen } from './screen.js';
import { DASHBOARD_CSS } from './styles.js';

/** The session cookie: the session's id, which the database knows only by its hash. */
export const SESSION_COOKIE = 'paygate_session';
/** Before sign-in, the browser's own form token (double submit: the sign-in form must carry the cookie's value). */
export const FORM_COOKIE = 'paygate_form';

const FORM_LIMIT_BYTES = 64 * 1024;
const BUSY_RETRY_SECONDS = 5;
const TOKEN = /^[A-Za-z0-9_-]{20,100}$/;

/**
 * The merchant dashboard's screens, with what they all share: the session cookie, the form token every posted form
 * must carry (CSRF), the role check on the server for every request, the frame, and the hosted pages' headers (no
 * script from elsewhere, never framed, never cached).
 */
export async function registerDashboard(
  app: FastifyInstance,
  platform: PlatformContext,
  options: { screens: readonly Screen[]; sessions: DashboardSessions | undefined },
): Promise<void> {
  const { sessions } = options;
  if (!sessions || options.screens.length === 0) return;
  const secure = platform.config.publicBaseUrl.startsWith('https:');
  const cookie = (name: string, value: string, maxAge?: number) =>
    `${name}=${value}; Path=/dashboard; HttpOnly; SameSite=Strict${secure ? '; Secure' : ''}${maxAge === undefined ? '' : `; Max-Age=${maxAge}`}`;
  // Home first, then the modules' screens in the modules' order.
  const menu = options.screens
    .filter((screen): screen is SignedInScreen => screen.access !== 'anyone' && screen.menu !== undefined)
    .sort((a, b) => Number(b.url === HOME_PATH) - Number(a.url === HOME_PATH));
  const sandbox = platform.config.mode === 'sandbox';

  await app.register(async (dashboard) => {
    preparePageScope(dashboard, FORM_LIMIT_BYTES);
    const hide = { schema: { hide: true } };
    dashboard.get(DASHBOARD_STYLESHEET_PATH, hide, async (_request, reply) =>
      reply.type('text/css; charset=utf-8').header('cache-control', 'public, max-age=3600').send(DASHBOARD_CSS),
    );

    const signedInOf = async (
      request: FastifyRequest,
    ): Promise<{ signedIn?: SignedIn; merchant?: Merchant; stale: boolean }> => {
      const sessionId = cookiesOf(request)[SESSION_COOKIE];
      if (sessionId === undefined) return { stale: false };
      const found = TOKEN.test(sessionId) ? await sessions.find(platform, sessionId) : undefined;
      const merchant = found && (await findMerchant(platform.db, found.merchantId));
      if (!found || !merchant) return { stale: true };
      return { signedIn: { ...found, merchantName: merchant.name }, merchant, stale: false };
    };

    const render = (reply: FastifyReply, status: number, page: DashboardPage, signedIn: SignedIn | undefined) =>
      reply
        .code(status)
        .type('text/html; charset=utf-8')
        .send(
          signedIn
            ? signedInPage({ page, signedIn, menu, path: reply.request.url.split('?')[0]!, sandbox })
            : bareDashboardPage({ page, sandbox }),
        );

    const answer = (reply: FastifyReply, result: ScreenAnswer, signedIn: SignedIn | undefined) => {
      if ('page' in result) return render(reply, result.status, result.page, signedIn);
      const cookies: string[] = [];
      if (result.startSession !== undefined) cookies.push(cookie(SESSION_COOKIE, result.startSession));
      if (result.endSession) cookies.push(cookie(SESSION_COOKIE, '', 0));
      if (cookies.length > 0) reply.header('set-cookie', cookies);
      return reply.code(303).header('location', result.redirect).send();
    };

    for (const screen of options.screens) {
      dashboard.route({
        method: screen.method,
        url: screen.url,
        ...hide,
        handler: async (request, reply) => {
          const { signedIn, merchant, stale } = await signedInOf(request);
          if (stale) reply.header('set-cookie', [cookie(SESSION_COOKIE, '', 0)]);
          const form = request.body && typeof request.body === 'object' ? (request.body as Record<string, string>) : {};
          const base = {
            id: request.id,
            params: request.params as Record<string, string>,
            query: request.query as Record<string, string | undefined>,
            form,
            address: request.ip,
          };
          try {
            if (screen.access === 'anyone') {
              let browserToken = cookiesOf(request)[FORM_COOKIE];
              if (browserToken === undefined || !TOKEN.test(browserToken)) {
                browserToken = randomBytes(24).toString('base64url');
                reply.header('set-cookie', [cookie(FORM_COOKIE, browserToken)]);
              }
              if (screen.method === 'POST' && !sameToken(form[FORM_FIELD], browserToken))
                return render(reply, 403, FORM_EXPIRED, undefined);
              return answer(
                reply,
                await screen.handle(platform, { ...base, signedIn, formToken: browserToken }),
                undefined,
              );
            }
            if (!signedIn || !merchant) {
              const next = screen.method === 'GET' ? `?next=${encodeURIComponent(request.url)}` : '';
              return reply.code(303).header('location', `${SIGN_IN_PATH}${next}`).send();
            }
            if (screen.method === 'POST' && !sameToken(form[FORM_FIELD], signedIn.formToken))
              return render(reply, 403, FORM_EXPIRED, signedIn);
            if (!roleAllows(signedIn.role, screen.access))
              return render(
                reply,
                403,
                problemPage(
                  'Not allowed',
                  `Your role (${signedIn.role}) does not allow this: it needs ${screen.access === 'owner' ? 'an owner' : 'an admin or an owner'}.`,
                ),
                signedIn,
              );
            const ctx = merchantContext(
              platform,
              merchant,
              { kind: 'person', personId: signedIn.personId, email: signedIn.email },
              request.id,
            );
            const result = await screen.handle(ctx, { ...base, signedIn, formToken: signedIn.formToken });
            if (result.audit) await sessions.record(platform, signedIn, request.ip, result.audit);
            return answer(reply, result, signedIn);
          } catch (error) {
            if (isAppError(error, PLATFORM_ERRORS.busy)) {
              reply.header('retry-after', String(BUSY_RETRY_SECONDS));
              return render(
                reply,
                503,
                problemPage(
                  'Busy',
                  `Many people are asking for this at the same time. Try again in ${BUSY_RETRY_SECONDS} seconds.`,
                ),
                signedIn,
              );
            }
            if (error instanceof AppError && error.definition.status < 500)
              return render(reply, error.definition.status, problemPage('Refused', error.message), signedIn);
            request.log.error({ err: error }, 'dashboard screen failed');
            return render(
              reply,
              error instanceof AppError ? error.definition.status : 500,
              problemPage(
                'Something went wrong',
                `The request could not be completed; quote this reference to the operator: ${request.id}.`,
              ),
              signedIn,
            );
          }
        },
      });
    }
  });
}

const FORM_EXPIRED = problemPage(
  'Form expired',
  'The form has expired or did not come from this dashboard: reload the page and try again.',
);

function cookiesOf(request: FastifyRequest): Record<string, string> {
  const header = request.headers.cookie;
  const cookies: Record<string, string> = {};
  if (!header) return cookies;
  for (const part of header.split(';')) {
    const at = part.indexOf('=');
    if (at < 0) continue;
    const name = part.slice(0, at).trim();
    // The first of a name wins: a cookie set for a narrower path comes first, and ours are the only ones on /dashboard.
    if (!(name in cookies)) cookies[name] = part.slice(at + 1).trim();
  }
  return cookies;
}

function sameToken(given: string | undefined, expected: string): boolean {
  if (given === undefined) return false;
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}
