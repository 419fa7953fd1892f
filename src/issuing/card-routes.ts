import type { Static } from 'typebox';
import { clientCall } from '../http/examples.js';
import { pageReply } from '../http/list-reply.js';
import { defineRoute } from '../http/route.js';
import { issueCard, limitHistory, listCards, moveCard, readCard, revealCardNumber, setCardLimits } from './cards.js';
import { ISSUING_ERRORS } from './errors.js';
import { EXAMPLE_CARD, EXAMPLE_CARD_ID, EXAMPLE_NEW_CARD } from './examples.js';
import { expirationDate, presentLimits } from './present.js';
import {
  CardData,
  CardLimitsBody,
  CardListData,
  CardListQuery,
  CardParams,
  CreateCardBody,
  FullNumberData,
  LimitHistoryData,
} from './schemas.js';

const BASE = '/svc/ts/api/v1/openapi/cards';
const TAGS = ['issuing'];
const OF_CARD = { id: EXAMPLE_CARD_ID };
const NEW_LIMITS: Static<typeof CardLimitsBody>['limits'] = [{ period: 'daily', limit_amount: '5000.00' }];

const statusRoute = (
  move: 'lock' | 'unlock' | 'terminate',
  operationId: string,
  summary: string,
  status: typeof EXAMPLE_CARD.status,
) =>
  defineRoute({
    method: 'POST',
    url: `${BASE}/:id/${move}`,
    operationId,
    summary,
    tags: TAGS,
    params: CardParams,
    data: CardData,
    errors: [ISSUING_ERRORS.cardNotFound, ISSUING_ERRORS.cardTerminated],
    handler: ({ ctx, params }) => moveCard(ctx, params.id, move),
    present: (card) => ({ card }),
    example: {
      request: { params: OF_CARD },
      reply: { card: { ...EXAMPLE_CARD, status } },
      client: clientCall(`cards.${move}`, EXAMPLE_CARD_ID),
    },
  });

export const CARD_ROUTES = [
  defineRoute({
    method: 'POST',
    url: BASE,
    operationId: 'createCard',
    summary: 'Issue a JCB card to an approved user, with spending limits (docs/issuing.md).',
    tags: TAGS,
    body: CreateCardBody,
    data: CardData,
    errors: [ISSUING_ERRORS.cardUserNotFound, ISSUING_ERRORS.cardUserNotApproved, ISSUING_ERRORS.cardReferenceUsed],
    handler: ({ ctx, body }) => issueCard(ctx, body.card),
    present: (card) => ({ card }),
    example: {
      request: { body: { card: EXAMPLE_NEW_CARD } },
      reply: { card: EXAMPLE_CARD },
      client: clientCall('cards.create', EXAMPLE_NEW_CARD),
    },
  }),
  defineRoute({
    method: 'GET',
    url: BASE,
    operationId: 'listCards',
    summary: "The merchant's cards, newest first, with their limits and what the current periods have used.",
    description: 'offset 0 and limit 20 by default; limit at most 1000.',
    tags: TAGS,
    querystring: CardListQuery,
    data: CardListData,
    errors: [],
    handler: async ({ ctx, query }) => {
      const { cards, total } = await listCards(ctx, query);
      return pageReply('cards', query, cards, total);
    },
    example: {
      request: {},
      reply: { cards: [EXAMPLE_CARD], offset: 0, limit: 20, total: 1 },
      client: clientCall('cards.list'),
    },
  }),
  defineRoute({
    method: 'GET',
    url: `${BASE}/:id`,
    operationId: 'getCard',
    summary: 'Read a card (masked), with its limits and what the current periods have used.',
    tags: TAGS,
    params: CardParams,
    data: CardData,
    errors: [ISSUING_ERRORS.cardNotFound],
    handler: async ({ ctx, params }) => ({ card: await readCard(ctx, params.id) }),
    example: {
      request: { params: OF_CARD },
      reply: { card: EXAMPLE_CARD },
      client: clientCall('cards.get', EXAMPLE_CARD_ID),
    },
  }),
  defineRoute({
    method: 'GET',
    url: `${BASE}/:id/full_number`,
    operationId: 'getCardFullNumber',
    summary: 'The full card number and CVV: the only reply that carries them; every read is recorded in an audit log.',
    tags: TAGS,
    params: CardParams,
    data: FullNumberData,
    errors: [ISSUING_ERRORS.cardNotFound],
    handler: ({ ctx, params }) => revealCardNumber(ctx, params.id),
    present: ({ card, number, cvv }) => ({
      card: { id: card.id, pan: number, cvv, expiration_date: expirationDate(card) },
    }),
    example: {
      request: { params: OF_CARD },
      reply: { card: { id: EXAMPLE_CARD_ID, pan: '3569990012340427', cvv: '123', expiration_date: '12/29' } },
      client: clientCall('cards.fullNumber', EXAMPLE_CARD_ID),
    },
  }),
  statusRoute('lock', 'lockCard', 'Lock a card: its authorisations are declined until it is unlocked.', 'Locked'),
  statusRoute('unlock', 'unlockCard', 'Unlock a locked card.', 'Active'),
  statusRoute(
    'terminate',
    'terminateCard',
    'Terminate a card, for good: nothing can change it afterwards.',
    'Terminated',
  ),
  defineRoute({
    method: 'PUT',
    url: `${BASE}/:id/limits`,
    operationId: 'setCardLimits',
    summary:
      "Replace a card's limits: a period left out has no limit any more. Every change is kept in the card's limit history.",
    tags: TAGS,
    params: CardParams,
    body: CardLimitsBody,
    data: CardData,
    errors: [ISSUING_ERRORS.cardNotFound, ISSUING_ERRORS.cardTerminated],
    handler: ({ ctx, params, body }) => setCardLimits(ctx, params.id, body.limits),
    present: (card) => ({ card }),
    example: {
      request: { params: OF_CARD, body: { limits: NEW_LIMITS } },
      reply: { card: { ...EXAMPLE_CARD, limits: [{ period: 'daily', limit_amount: '5000.00', used_amount: '0.00' }] } },
      client: clientCall('cards.setLimits', EXAMPLE_CARD_ID, NEW_LIMITS),
    },
  }),
  defineRoute({
    method: 'GET',
    url: `${BASE}/:id/limit_changes`,
    operationId: 'listCardLimitChanges',
    summary: "A card's limit history: every set of limits it has had, oldest first, with who set it.",
    tags: TAGS,
    params: CardParams,
    data: LimitHistoryData,
    errors: [ISSUING_ERRORS.cardNotFound],
    handler: ({ ctx, params }) => limitHistory(ctx, params.id),
    present: ({ card, changes }) => ({
      changes: changes.map((change) => ({
        limits: presentLimits(change.limits, card.settlement_currency),
        changed_by: change.changed_by,
        created_at: new Date(change.created_at).toISOString(),
      })),
    }),
    example: {
      request: { params: OF_CARD },
      reply: {
        changes: [
          {
            limits: EXAMPLE_NEW_CARD.limits!.map((limit) => ({ ...limit, limit_amount: String(limit.limit_amount) })),
            changed_by: 'app:a1b2c3d4',
            created_at: '2026-12-01T02:00:00.000Z',
          },
          {
            limits: NEW_LIMITS.map((limit) => ({ ...limit, limit_amount: String(limit.limit_amount) })),
            changed_by: 'app:a1b2c3d4',
            created_at: '2026-12-02T09:30:00.000Z',
          },
        ],
      },
      client: clientCall('cards.limitChanges', EXAMPLE_CARD_ID),
    },
  }),
];
