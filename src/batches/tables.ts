/**
 * The tables of batches/, as the migrations create them (platform/database/schema.ts says how columns are kept).
 * They join the database's Schema here, beside the module that owns them: no other capability names them.
 */
declare module '../platform/database/schema.js' {
  interface Schema {
    batches: BatchesTable;
    batch_file_parts: BatchFilePartsTable;
    batch_rows: BatchRowsTable;
  }
}

export interface BatchesTable {
  id: string;
  merchant_id: string;
  batch_name: string;
  /** pending, processing, success, failed, cancelled. */
  upload_status: string;
  /** Where the file is fetched from; null for a file sent as the request's body. */
  file_url: string | null;
  /** csv or xlsx, once the file has been read. */
  file_kind: string | null;
  file_bytes: number | null;
  total_records: number;
  successful_records: number;
  failed_records: number;
  /** Rows a cancellation kept from running. */
  skipped_records: number;
  /** Why the file as a whole failed (status failed). */
  failure_reason: string | null;
  /** The app that created the batch: its events are signed with that app's key. */
  app_id: string | null;
  created_by: string;
  started_at: number | null;
  finished_at: number | null;
  /** When the batch was cancelled. */
  deleted_at: number | null;
  created_at: number;
  updated_at: number;
}

/** A file sent as a request's body, in parts of base64 text, until its batch has read it. */
export interface BatchFilePartsTable {
  batch_id: string;
  part: number;
  merchant_id: string;
  content: string;
}

export interface BatchRowsTable {
  batch_id: string;
  /** As a spreadsheet numbers it: the header is row 1. */
  row_number: number;
  merchant_id: string;
  /** waiting, running, succeeded, failed, skipped. */
  state: string;
  /** The action as the file wrote it (lower case); null when the cell held none. */
  action: string | null;
  /** JSON: what the row asks for, checked (never a card number). */
  instruction: string | null;
  /** A card row's card as first 6 and last 4 digits. */
  card_masked: string | null;
  /** A card row's card, encrypted, until its row has run: then erased. */
  card_sealed: string | null;
  remark: string | null;
  order_id: string | null;
  transaction_id: string | null;
  /** The file's column at fault, as the file names it, for a row that failed. */
  error_column: string | null;
  error_reason: string | null;
  /** What happened, in words, for the result file. */
  outcome: string | null;
  updated_at: number;
}
