import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { DocumentCache } from '../../src/platform/document-cache.js';

describe('the cache of rendered documents', () => {
  const counting = () => {
    const rendered: string[] = [];
    const render = async (input: { text: string }) => {
      rendered.push(input.text);
      await new Promise((resolve) => setTimeout(resolve, 5));
      return new TextEncoder().encode(input.text);
    };
    return { rendered, render };
  };

  test('renders a document once, however many ask for it at the same time or later', async () => {
    const { rendered, render } = counting();
    const cache = new DocumentCache(render, { maxBytes: 1_000 });
    const documents = await Promise.all(Array.from({ length: 5 }, () => cache.get({ text: 'receipt A' })));
    assert.ok(documents.every((document) => document.toString() === 'receipt A'));
    assert.equal((await cache.get({ text: 'receipt A' })).toString(), 'receipt A');
    assert.deepEqual(rendered, ['receipt A']);
    // Anything that differs in what it is made from is another document.
    assert.equal((await cache.get({ text: 'receipt B' })).toString(), 'receipt B');
    assert.deepEqual(rendered, ['receipt A', 'receipt B']);
  });

  test('keeps at most maxBytes, forgetting the least recently used first', async () => {
    const { rendered, render } = counting();
    const cache = new DocumentCache(render, { maxBytes: 20 });
    await cache.get({ text: 'first 10 b' });
    await cache.get({ text: 'second 10b' });
    await cache.get({ text: 'first 10 b' });
    await cache.get({ text: 'third 10 b' });
    assert.deepEqual(rendered, ['first 10 b', 'second 10b', 'third 10 b']);
    await cache.get({ text: 'second 10b' });
    assert.deepEqual(rendered.at(-1), 'second 10b', 'the second was the least recently used, so it went');
  });

  test('a failed rendering is not kept: the next request tries again', async () => {
    let attempts = 0;
    const cache = new DocumentCache(
      async () => {
        attempts += 1;
        if (attempts === 1) throw new Error('the renderer failed');
        return new Uint8Array([1, 2, 3]);
      },
      { maxBytes: 100 },
    );
    await assert.rejects(cache.get({}), /the renderer failed/);
    assert.deepEqual([...(await cache.get({}))], [1, 2, 3]);
    assert.equal(attempts, 2);
  });
});
