import type { FastifyInstance, FastifyReply } from 'fastify';
import type { PlatformContext } from '../context/context.js';
import { AppError, isAppError, PLATFORM_ERRORS } from '../platform/errors.js';
import { FAVICON_PATH, ICON_PATH, ICON_SVG } from './icon.js';
import { messagePage, STYLESHEET_PATH } from './layout.js';
import { PAGES_CSS } from './styles.js';

/** What a hosted page answers: a page (with its status), a redirect after a form was posted, or a file. */
export type PageAnswer = { status: number; html: string } | { redirect: string };
export type FileAnswer = { file: Buffer; contentType: string; filename: string };

export interface PageRequest {
  id: string;
  params: Record<string, string>;
  query: Record<string, string | undefined>;
  /** A posted form's fields (application/x-www-form-urlencoded); empty for a GET. */
  form: Record<string, string>;
}

/** One hosted page, declared by the capability whose link opens it. */
export interface PageRoute {
  method: 'GET' | 'POST';
  url: string;
  handle(platform: PlatformContext, request: PageRequest): Promise<PageAnswer | FileAnswer>;
}

/**
 * Pages are for people with a link, not for signed clients: no script at all, styles only from here, forms
 * only to here, never framed, never cached, and no Referer that would carry a link's token to another site.
 */
export const PAGE_SECURITY_HEADERS: Record<string, string> = {
  'content-security-policy':
    "default-src 'none'; style-src 'self'; img-src 'self' data:; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
  'x-frame-options': 'DENY',
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'cache-control': 'no-store',
};

/** The stylesheet and the icons: the same bytes for everyone, cached by browsers, so not counted against a caller. */
export const FREE_PAGE_PATHS: readonly string[] = [STYLESHEET_PATH, ICON_PATH, FAVICON_PATH];

const FORM_LIMIT_BYTES = 16 * 1024;

/**
 * What every scope of pages for people shares (the hosted pages, the dashboard): forms parsed as
 * application/x-www-form-urlencoded up to `formLimitBytes`, and the pages' security headers on every answer.
 */
export function preparePageScope(scope: FastifyInstance, formLimitBytes: number): void {
  scope.addContentTypeParser(
    'application/x-www-form-urlencoded',
    { parseAs: 'string', bodyLimit: formLimitBytes },
    (_request, body, done) => {
      done(null, Object.fromEntries(new URLSearchParams(body as string)));
    },
  );
  scope.addHook('onSend', async (_request, reply) => {
    for (const [name, value] of Object.entries(PAGE_SECURITY_HEADERS)) {
      // A stylesheet or an icon sets its own caching; everything else is never stored.
      if (name !== 'cache-control' || !reply.hasHeader(name)) reply.header(name, value);
    }
  });
}
const BUSY_RETRY_SECONDS = 5;

export const isPageAnswer = <T extends object>(value: T | PageAnswer): value is PageAnswer =>
  'html' in value || 'redirect' in value;

/**
 * The hosted pages of every capability, with what they all share: headers, the form parser, the error page, the
 * stylesheet and the icon. Their rate limits are applied before the framework, by the page gate (page-gate.ts).
 */
export async function registerPages(
  app: FastifyInstance,
  platform: PlatformContext,
  routes: readonly PageRoute[],
): Promise<void> {
  await app.register(async (pages) => {
    preparePageScope(pages, FORM_LIMIT_BYTES);
    pages.setErrorHandler((error, request, reply) => {
      if (isAppError(error, PLATFORM_ERRORS.busy)) {
        void reply
          .code(503)
          .header('retry-after', String(BUSY_RETRY_SECONDS))
          .type('text/html; charset=utf-8')
          .send(
            messagePage({
              title: 'Busy',
              heading: 'One moment',
              sandbox: platform.config.mode === 'sandbox',
              message: `Many people are asking for this at the same time. Try again in ${BUSY_RETRY_SECONDS} seconds.`,
            }),
          );
        return;
      }
      const status =
        error instanceof AppError ? error.definition.status : ((error as { statusCode?: number }).statusCode ?? 500);
      if (status >= 500) request.log.error({ err: error }, 'hosted page failed');
      const sandbox = platform.config.mode === 'sandbox';
      const message =
        status >= 500
          ? `Something went wrong on our side; nothing more was charged. Please try again in a moment. Reference: ${request.id}.`
          : 'The request could not be read. Go back and try again.';
      void reply
        .code(status >= 500 ? status : 400)
        .type('text/html; charset=utf-8')
        .send(
          messagePage({
            title: status >= 500 ? 'Something went wrong' : 'Bad request',
            heading: 'Payment',
            sandbox,
            message,
          }),
        );
    });

    const hide = { schema: { hide: true } };
    pages.get(STYLESHEET_PATH, hide, async (_request, reply) => {
      // The one exception to no-store: the stylesheet holds nothing private.
      return reply.type('text/css; charset=utf-8').header('cache-control', 'public, max-age=3600').send(PAGES_CSS);
    });
    for (const path of [ICON_PATH, FAVICON_PATH]) {
      pages.get(path, hide, async (_request, reply) => {
        return reply.type('image/svg+xml').header('cache-control', 'public, max-age=86400').send(ICON_SVG);
      });
    }
    for (const route of routes) {
      pages.route({
        method: route.method,
        url: route.url,
        ...hide,
        handler: async (request, reply) =>
          send(
            reply,
            await route.handle(platform, {
              id: request.id,
              params: request.params as Record<string, string>,
              query: request.query as Record<string, string | undefined>,
              form: request.body && typeof request.body === 'object' ? (request.body as Record<string, string>) : {},
            }),
          ),
      });
    }
  });
}

function send(reply: FastifyReply, answer: PageAnswer | FileAnswer): FastifyReply {
  if ('file' in answer) {
    return reply
      .type(answer.contentType)
      .header('content-disposition', `attachment; filename="${answer.filename}"`)
      .send(answer.file);
  }
  // After a form, the payer's browser fetches the next page with GET: a reload never posts a card twice.
  if ('redirect' in answer) return reply.code(303).header('location', answer.redirect).send();
  return reply.code(answer.status).type('text/html; charset=utf-8').send(answer.html);
}
