import { Readable } from 'node:stream';

/**
 * A batch file as its readers see it: its size and its bytes by range. An XLSX workbook is a zip, read by random
 * access (its directory is at the end); CSV is read from start to end. Where the bytes live (the request's body, the
 * sealed parts of a stored file) is the source's business: no reader knows, so no reader can leave them in clear.
 */
export interface FileSource {
  readonly size: number;
  /** The bytes from `start` up to, not including, `end`, as a stream. */
  range(start: number, end: number): Readable;
}

/** A file held in memory: the body of the request that sends it. */
export function bufferSource(bytes: Buffer): FileSource {
  return {
    size: bytes.length,
    range: (start, end) => Readable.from([bytes.subarray(start, end)], { objectMode: false }),
  };
}

/** The first `count` bytes of a file (fewer when it is shorter). */
export async function headOf(source: FileSource, count: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of source.range(0, Math.min(count, source.size))) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}
