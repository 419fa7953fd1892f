import Type from 'typebox';
import { TransactionSchema } from '../orders/index.js';

/**
 * A transaction of a batch as operation 5 gives it (interface.md, "Batch of merchant-initiated transactions"):
 * every field, in the seed's types. The strings the seed requires are strings even when there is nothing to say
 * (`''`); only `extra` and `original_transaction_uuid` may be null.
 */
const NullPerson = Type.Null();

export const BatchOrderSchema = Type.Object({
  source: Type.String(),
  type: Type.String(),
  number: Type.String(),
  due_date: Type.String(),
  paid_total: Type.String(),
  unpaid_total: Type.String(),
  reference_number: Type.String(),
  state: Type.String(),
  correspondence_state: Type.String(),
  currency: Type.String(),
  note: Type.String(),
  auth_code: Type.String(),
  created_at: Type.String(),
  updated_at: Type.String(),
  initial_total: Type.Number({
    description: 'Major units, as every order amount: 12.5 for HKD 12.50 (the seed types it integer).',
  }),
  initial_tips: Type.Number(),
  subtotal: Type.Number(),
  payment_method_option: Type.Object({ online: Type.Object({}) }),
  business: Type.Object({ id: Type.String(), business_name: Type.String() }),
  line_items: Type.Null(),
  transactions: Type.Null(),
  customer: Type.Object({
    uuid: NullPerson,
    name: NullPerson,
    email: NullPerson,
    phone: NullPerson,
    dial_code: NullPerson,
    payer_company_name: NullPerson,
    reference_number: NullPerson,
    p_created_at: NullPerson,
    p_updated_at: NullPerson,
  }),
});

/** What a batch transaction shares with an order's transaction (operations 1 and 8), declared there once. */
const shared = TransactionSchema.properties;

export const BatchTransactionSchema = Type.Object({
  type: Type.Integer({ description: '1 Sales, 2 Authorization, 3 Capture, 4 Refund.' }),
  source: Type.String(),
  success: shared.success,
  is_pending: shared.is_pending,
  captured: shared.captured,
  allow_void: shared.allow_void,
  allow_refund: shared.allow_refund,
  void_is_pending: shared.void_is_pending,
  voided: shared.voided,
  refunded_amount: Type.Number(),
  amount: Type.Number(),
  change_amount: Type.Number(),
  original_currency_amount: Type.Number(),
  tips_amount: Type.Number(),
  payment_method: shared.payment_method,
  currency: shared.currency,
  uuid: shared.uuid,
  note: Type.String(),
  voided_at: Type.String(),
  device_sn: Type.String(),
  original_device_sn: Type.String(),
  acquirer_response_body: Type.String(),
  created_at: Type.String(),
  reference_id: Type.String(),
  original_transaction_reference_id: Type.String(),
  payment_data: shared.payment_data,
  extra: Type.Union([
    Type.Object({ row: Type.Integer(), remark: Type.Union([Type.String(), Type.Null()]) }),
    Type.Null(),
  ]),
  '3ds': Type.Object({ enrolled: Type.String(), redirect_url: Type.String() }),
  original_transaction_uuid: shared.original_transaction_uuid,
  order: BatchOrderSchema,
});

// ---- the batch itself, and the routes around it ----

export const BatchInfoSchema = Type.Object({
  id: Type.String(),
  created_at: Type.String(),
  updated_at: Type.String(),
  deleted_at: Type.String({ description: "When the batch was cancelled; '' until then." }),
  store_id: Type.Integer({
    description: 'The store the batch belongs to: paygate has one store per merchant, numbered 1.',
  }),
  batch_name: Type.String(),
  upload_status: Type.String({ description: 'pending, processing, success, failed or cancelled.' }),
  total_records: Type.Integer({ description: "The file's rows, once it has been read (0 until then)." }),
  successful_records: Type.Integer(),
  failed_records: Type.Integer({
    description: 'Rows refused by their own cells, or whose action failed (a declined payment included).',
  }),
  skipped_records: Type.Integer({ description: 'paygate: rows a cancellation kept from running.' }),
  failure_reason: Type.String({
    description: "paygate: why the file as a whole failed (upload_status failed); '' otherwise.",
  }),
  created_by: Type.String({ description: 'The app that created the batch (its AppID), or operator.' }),
});

export const BatchParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 64 }) });

export const CreateBatchBody = Type.Object(
  {
    batch: Type.Optional(
      Type.Object({
        file_url: Type.String({
          minLength: 1,
          maxLength: 2048,
          description: 'An http or https URL of a CSV or XLSX file.',
        }),
        batch_name: Type.Optional(Type.String({ minLength: 1, maxLength: 255 })),
      }),
    ),
  },
  {
    description:
      'Or, instead of this JSON body, the file itself as the body (text/csv or the XLSX media type) with batch_name in the query.',
  },
);

export const CreateBatchQuery = Type.Object({
  batch_name: Type.Optional(
    Type.String({ minLength: 1, maxLength: 255, description: 'The name of a batch whose file is the body.' }),
  ),
});

export const BatchCreatedData = Type.Object({ batch_info: BatchInfoSchema });
export const BatchData = Type.Object({ batch_info: BatchInfoSchema, transactions: Type.Array(BatchTransactionSchema) });
export const BatchListData = Type.Object({
  batches: Type.Array(BatchInfoSchema),
  offset: Type.Integer(),
  limit: Type.Integer(),
  total: Type.Integer(),
});

export const BatchRowErrorSchema = Type.Object({
  row: Type.Integer({ description: 'As a spreadsheet numbers it: the header is row 1.' }),
  column: Type.String({
    description: "The file's column at fault, as the file names it; '' when the row's action failed as a whole.",
  }),
  reason: Type.String(),
  action: Type.String({ description: "The row's action as written; '' when it has none." }),
  transaction_id: Type.String({
    description: "The transaction the row made, when it got that far (a declined payment); '' otherwise.",
  }),
});
export const BatchErrorsData = Type.Object({
  errors: Type.Array(BatchRowErrorSchema),
  offset: Type.Integer(),
  limit: Type.Integer(),
  total: Type.Integer(),
});
