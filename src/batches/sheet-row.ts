/** A row of a batch file as a spreadsheet shows it: its number (the header is row 1) and its cells' text. */
export interface SheetRow {
  row: number;
  cells: string[];
}

/** Why a file cannot be read as a whole (not a spreadsheet, a broken quote, too big once unpacked). */
export class BatchFileError extends Error {}
