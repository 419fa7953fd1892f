import Type, { type TSchema } from 'typebox';
import { BATCH_ERRORS } from '../../batches/index.js';
import { CUSTOMER_ERRORS } from '../../customers/index.js';
import { clientCall } from '../../http/examples.js';
import { defineRoute } from '../../http/route.js';
import { describeValidationError, validatorCompiler } from '../../http/validation.js';
import { ISSUING_ERRORS } from '../../issuing/index.js';
import { ORDER_ERRORS } from '../../orders/index.js';
import { TOKEN_ERRORS } from '../../payment-tokens/index.js';
import { PAYOUT_ERRORS } from '../../payouts/index.js';
import { AppError, type ErrorDefinition, PLATFORM_ERRORS } from '../../platform/errors.js';
import { RAIL_ERRORS } from '../../rails/errors.js';
import { RECURRING_ERRORS } from '../../recurring/index.js';
import { USER_ERRORS } from '../../users/index.js';
import { LAB_ERRORS } from '../errors.js';
import { LAB_BASE, LAB_TAGS, labRoute } from '../lab-routes.js';
import { TRIGGERS } from './catalogue.js';
import type { SetValue } from './fields.js';
import { type BodyCheck, runTrigger } from './run.js';

const SetValueSchema = Type.Union([
  Type.String({ maxLength: 2048 }),
  Type.Number(),
  Type.Boolean(),
  Type.Null(),
]) as unknown as TSchema;

export const TriggerBody = Type.Object({
  event: Type.String({
    minLength: 1,
    maxLength: 64,
    description: `The event kind to cause: ${TRIGGERS.map((t) => t.kind).join(', ')}.`,
  }),
  set: Type.Optional(
    Type.Unsafe<Record<string, SetValue>>({
      type: 'object',
      maxProperties: 50,
      propertyNames: { maxLength: 100 },
      additionalProperties: SetValueSchema,
      description:
        "Fields of the objects the trigger makes, by the API's names (`currency`, `charge_fee`, `reference_number`, `customer_uuid`...); each trigger takes its own (docs/lab.md). A field that does not apply is refused (900402).",
    }),
  ),
});

export const TriggerData = Type.Object({
  event: Type.String({ description: 'The event kind caused.' }),
  event_id: Type.String({ description: 'The event recorded: its X-Event-ID.' }),
  clock_moved_s: Type.Integer({ description: "How far the merchant's business clock moved for it, in seconds." }),
  objects: Type.Unsafe<Record<string, Record<string, string>>>({
    type: 'object',
    additionalProperties: { type: 'object', additionalProperties: { type: 'string' } },
    description:
      'The objects made, each by its identifiers (order: number, reference_number; transaction: uuid; customer: uuid...).',
  }),
});

/** Every refusal of the verbs a trigger runs: a value set is refused as the verb itself refuses it. */
const VERB_ERRORS: ErrorDefinition[] = [
  ...new Set([
    PLATFORM_ERRORS.currencyInvalid,
    PLATFORM_ERRORS.busy,
    ...Object.values(ORDER_ERRORS),
    ...Object.values(CUSTOMER_ERRORS),
    ...Object.values(TOKEN_ERRORS),
    ...Object.values(RECURRING_ERRORS),
    ...Object.values(BATCH_ERRORS),
    ...Object.values(USER_ERRORS),
    ...Object.values(ISSUING_ERRORS),
    ...Object.values(PAYOUT_ERRORS),
    ...Object.values(RAIL_ERRORS),
  ]),
];

/** A body checked against the API's own schema for it, refused with the HTTP layer's own words. */
type Validator = ((value: unknown) => boolean) & { errors?: unknown[] | null };
const checkers = new WeakMap<TSchema, Validator>();
const checkBody: BodyCheck = (schema, body) => {
  let validate = checkers.get(schema) as Validator | undefined;
  if (!validate) {
    validate = validatorCompiler({ schema, httpPart: 'body', method: 'POST', url: LAB_BASE }) as unknown as Validator;
    checkers.set(schema, validate);
  }
  if (!validate(body))
    throw new AppError(
      PLATFORM_ERRORS.validationFailed,
      describeValidationError((validate.errors ?? []) as never, 'body', false),
    );
  return body as never;
};

const EXAMPLE_SET = { currency: 'USD', charge_fee: '12.50', reference_number: 'ORDER-2041' };

export const TRIGGER_ROUTES = [
  labRoute(
    defineRoute({
      method: 'POST',
      url: `${LAB_BASE}/triggers`,
      operationId: 'runLabTrigger',
      summary:
        'Cause an event: make the real objects behind it through the API’s own verbs, and answer once it is recorded.',
      description:
        'One trigger per event kind of docs/webhooks.md. Where time must pass (a settled payout, an expired authorisation) the merchant’s business clock moves, and clock_moved_s says how far. Sandbox only (403 900101 in live mode).',
      tags: LAB_TAGS,
      body: TriggerBody,
      data: TriggerData,
      errors: [
        LAB_ERRORS.triggerUnknown,
        LAB_ERRORS.triggerFieldInvalid,
        LAB_ERRORS.triggerEventNotMade,
        ...VERB_ERRORS,
      ],
      handler: ({ ctx, body }) => runTrigger(ctx, body, checkBody),
      example: {
        request: { body: { event: 'order.paid', set: EXAMPLE_SET } },
        reply: {
          event: 'order.paid',
          event_id: '0193a8e2-5c1e-7b7a-9f1e-2b8c4d6e7f80',
          clock_moved_s: 0,
          objects: {
            order: { number: '261122093015123456', reference_number: 'ORDER-2041' },
            transaction: { uuid: '5a7c9e1b-3d5f-4a7c-9e1b-3d5f7a9c1e3b' },
          },
        },
        client: clientCall('labTriggers.trigger', 'order.paid', EXAMPLE_SET),
      },
    }),
  ),
];
