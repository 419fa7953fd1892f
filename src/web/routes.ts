import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { PlatformContext } from '../context/context.js';
import { AppError } from '../platform/errors.js';
import type { PageAnswer } from './answers.js';
import { bindFromPage, showBindingPage } from './binding.js';
import { cancelWaitingPayment, isNotice, payByCard, payByWallet, showCheckout } from './checkout.js';
import { messagePage, STYLESHEET_PATH } from './layout.js';
import { PAYMENT_LINK, RECEIPT_LINK } from '../orders/links.js';
import { BINDING_LINK } from '../payment-tokens/links.js';
import { downloadReceipt, type ReceiptAnswer } from './receipt.js';
import { answerPayerPage, showPayerPage, type PayerPageKind } from './sandbox/payer-pages.js';
import { PAGES_CSS } from './styles.js';

/**
 * Pages are for people with a link, not for signed clients: no script at all, styles only from here, forms
 * only to here, never framed, never cached, and no Referer that would carry a link's token to another site.
 */
export const PAGE_SECURITY_HEADERS: Record<string, string> = {
  'content-security-policy': "default-src 'none'; style-src 'self'; img-src 'self' data:; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
  'x-frame-options': 'DENY',
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'cache-control': 'no-store',
};

const FORM_LIMIT_BYTES = 16 * 1024;

type TokenParams = { token: string };
type Form = Record<string, string>;

/** The hosted pages: payment links, card binding and receipts always; the 3-D Secure and wallet stand-ins in sandbox mode. */
export async function registerHostedPages(app: FastifyInstance, platform: PlatformContext): Promise<void> {
  await app.register(async (pages) => {
    pages.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string', bodyLimit: FORM_LIMIT_BYTES }, (_request, body, done) => {
      done(null, Object.fromEntries(new URLSearchParams(body as string)));
    });
    pages.addHook('onSend', async (_request, reply) => {
      for (const [name, value] of Object.entries(PAGE_SECURITY_HEADERS)) {
        // The stylesheet sets its own caching; everything else is never stored.
        if (name !== 'cache-control' || !reply.hasHeader(name)) reply.header(name, value);
      }
    });
    pages.setErrorHandler((error, request, reply) => {
      const status = error instanceof AppError ? error.definition.status : (error as { statusCode?: number }).statusCode ?? 500;
      if (status >= 500) request.log.error({ err: error }, 'hosted page failed');
      const sandbox = platform.config.mode === 'sandbox';
      const message = status >= 500
        ? `Something went wrong on our side; nothing more was charged. Please try again in a moment. Reference: ${request.id}.`
        : 'The request could not be read. Go back and try again.';
      void reply.code(status >= 500 ? status : 400).type('text/html; charset=utf-8')
        .send(messagePage({ title: status >= 500 ? 'Something went wrong' : 'Bad request', heading: 'Payment', sandbox, message }));
    });

    const form = (request: FastifyRequest): Form => (request.body && typeof request.body === 'object' ? request.body as Form : {});
    const query = (request: FastifyRequest) => request.query as Record<string, string | undefined>;
    const hide = { schema: { hide: true } };

    pages.get(STYLESHEET_PATH, hide, async (_request, reply) => {
      // The one exception to no-store: the stylesheet holds nothing private.
      return reply.type('text/css; charset=utf-8').header('cache-control', 'public, max-age=3600').send(PAGES_CSS);
    });

    const pay = PAYMENT_LINK.path;
    pages.get<{ Params: TokenParams }>(`${pay}/:token`, hide, async (request, reply) => {
      const notice = query(request).notice;
      return send(reply, await showCheckout(platform, request.params.token, request.id, isNotice(notice) ? notice : undefined));
    });
    pages.post<{ Params: TokenParams }>(`${pay}/:token/card`, hide, async (request, reply) =>
      send(reply, await payByCard(platform, request.params.token, request.id, form(request))));
    pages.post<{ Params: TokenParams }>(`${pay}/:token/wallet`, hide, async (request, reply) =>
      send(reply, await payByWallet(platform, request.params.token, request.id, form(request))));
    pages.post<{ Params: TokenParams }>(`${pay}/:token/cancel`, hide, async (request, reply) =>
      send(reply, await cancelWaitingPayment(platform, request.params.token, request.id, form(request))));

    pages.get<{ Params: TokenParams }>(`${BINDING_LINK.path}/:token`, hide, async (request, reply) =>
      send(reply, await showBindingPage(platform, request.params.token, request.id, query(request).token)));
    pages.post<{ Params: TokenParams }>(`${BINDING_LINK.path}/:token/card`, hide, async (request, reply) =>
      send(reply, await bindFromPage(platform, request.params.token, request.id, form(request))));

    pages.get<{ Params: TokenParams }>(`${RECEIPT_LINK.path}/:token`, hide, async (request, reply) =>
      sendReceipt(reply, await downloadReceipt(platform, request.params.token, request.id)));

    if (platform.config.mode === 'sandbox') {
      for (const kind of ['3ds', 'wallet'] as PayerPageKind[]) {
        pages.get<{ Params: TokenParams }>(`/pay/${kind}/:token`, hide, async (request, reply) =>
          send(reply, await showPayerPage(platform, kind, request.params.token, query(request).checkout)));
        pages.post<{ Params: TokenParams }>(`/pay/${kind}/:token`, hide, async (request, reply) =>
          send(reply, await answerPayerPage(platform, kind, request.params.token, query(request).checkout, form(request), request.id)));
      }
    }
  });
}

function send(reply: FastifyReply, answer: PageAnswer): FastifyReply {
  // After a form, the payer's browser fetches the next page with GET: a reload never posts a card twice.
  if ('redirect' in answer) return reply.code(303).header('location', answer.redirect).send();
  return reply.code(answer.status).type('text/html; charset=utf-8').send(answer.html);
}

function sendReceipt(reply: FastifyReply, answer: ReceiptAnswer): FastifyReply {
  if (!('pdf' in answer)) return send(reply, answer);
  return reply.type('application/pdf').header('content-disposition', `attachment; filename="${answer.filename}"`).send(answer.pdf);
}
