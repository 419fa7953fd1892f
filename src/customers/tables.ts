/**
 * The tables of customers/, as the migrations create them (platform/database/schema.ts says how columns are kept).
 * They join the database's Schema here, beside the module that owns them: no other capability names them.
 */
declare module '../platform/database/schema.js' {
  interface Schema {
    customers: CustomersTable;
  }
}

export interface CustomersTable {
  id: string;
  merchant_id: string;
  reference_number: string;
  name: string;
  phone: string;
  email: string | null;
  dial_code: string | null;
  company_name: string | null;
  default_payment_method: string | null;
  default_payment_token_id: string | null;
  created_at: number;
  updated_at: number;
}
