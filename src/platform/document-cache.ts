import { createHash } from 'node:crypto';
import { LRUCache } from 'lru-cache';

/**
 * Rendered documents (receipts, later statements), kept by what they were made from: asking again for the same
 * document, through any link, costs a lookup, and asking for it many times at once renders it once. Bounded
 * in bytes; the least recently used go first.
 */
export class DocumentCache<Input> {
  // The context is what to render from when the key is missing (typed loosely: lru-cache's types need a concrete one).
  private readonly documents: LRUCache<string, Buffer, unknown>;

  constructor(render: (input: Input) => Promise<Uint8Array>, options: { maxBytes: number }) {
    this.documents = new LRUCache<string, Buffer, unknown>({
      maxSize: options.maxBytes,
      sizeCalculation: (document) => Math.max(1, document.length),
      fetchMethod: async (_key, _stale, { context }) => Buffer.from(await render(context as Input)),
    });
  }

  /** The document made from `input` (everything it shows must be in `input`: it is the key). */
  async get(input: Input): Promise<Buffer> {
    const key = createHash('sha256').update(JSON.stringify(input)).digest('base64url');
    const document = await this.documents.fetch(key, { context: input });
    if (document === undefined) throw new Error('the document was not rendered');
    return document;
  }
}
