import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { PaygateClient } from '@paygate/client';
import { setAppWebhookUrl } from '../../src/merchants/apps.js';
import { csv, type FileServer, startFileServer } from '../batches/support.js';
import { bindingCard, CARDS, card } from '../support/fixtures.js';
import { type Operation, signedOperations } from '../support/openapi-document.js';
import { TestReceiver } from '../support/receiver.js';
import { startTestServer, type TestMerchant, type TestServer } from '../support/server.js';
import { type DocExample, type DocFile, operationOf, readDocs, Substitutions } from './doc-examples.js';

// Issue 35: every operation of the API has an example in docs/, and every example there runs as written. What
// counts as an example (a ```http block, `npx paygate call` in a ```sh block, the ```json reply after a ```http
// block) is written out in ./doc-examples.ts. Each doc runs on a merchant of its own, its examples in document
// order, each answering 2xx, or the refusal its reply shows; an id shown in a reply stands, in the later examples
// of the same doc, for the id the real reply gave.

/**
 * Operations with no example in docs/, and why. An operation of the OpenAPI document that is neither shown in
 * docs/ nor listed here fails the coverage test: a new route comes with its example.
 */
const DOCUMENTED_ELSEWHERE: Record<string, string> = {
  // The interface's older path of echo (the document marks it x-alias-of echo): the same route and handler, which
  // the API reference at /docs shows beside echo. docs/signing.md's self-test calls echo itself.
  echoAlias1: 'POST /svc/payment/api/v1/echo, an alias of echo',
};

/** What a doc's setup works with. */
interface Bed {
  server: TestServer;
  merchant: TestMerchant;
  client: PaygateClient;
  /** `shown`, a value written in the doc, stands for `real`, something the setup made. */
  give(shown: string, real: string): void;
  /** Runs when the doc's examples are done, before the server closes. */
  cleanup(step: () => Promise<void>): void;
}

/** The customer most docs' examples name, as the API reference's examples do. */
const CUSTOMER = '5fbed7a6-112c-410f-91d1-45fbc2155bb9';

async function newCustomer(client: PaygateClient, reference: string) {
  return client.customers.create({
    reference_number: reference,
    name: 'Chan Tai Man',
    phone: '91234567',
    dial_code: '852',
  });
}

/**
 * What a doc takes as given before its first example, made here through the client: the objects another doc shows
 * how to make. Docs not listed need nothing.
 */
const SETUPS: Record<string, (bed: Bed) => Promise<void>> = {
  // The customer the first order is made for (docs/customers.md makes customers), and a receiver on this machine
  // for its callback_url: one that answers, so that moving the clock a day does not wait on a day of retries to
  // an address that does not resolve.
  'orders.md': async ({ client, give, cleanup }) => {
    give(CUSTOMER, (await newCustomer(client, 'CUSTOMER-1001')).uuid);
    const receiver = await TestReceiver.start();
    cleanup(() => receiver.close());
    give('https://shop.example/paygate/notify', `${receiver.url}/paygate/notify`);
  },

  // The customer whose cards are bound, and R-2001, the order of that customer the token is charged for
  // (docs/orders.md makes orders).
  'payment-tokens.md': async ({ client, give }) => {
    const customer = await newCustomer(client, 'CUSTOMER-1001');
    give(CUSTOMER, customer.uuid);
    await client.orders.create(
      { reference_number: 'R-2001', currency: 'HKD', charge_fee: '50.00' },
      { customerUuid: customer.uuid },
    );
  },

  // A customer with a card bound as its default token, for the plans to charge (docs/payment-tokens.md binds cards;
  // 4000 0000 0000 3055 binds at once, without a challenge).
  'recurring.md': async ({ client, give }) => {
    const customer = await newCustomer(client, 'CUSTOMER-1001');
    const token = await client.customers.bindCard(customer.uuid, bindingCard(CARDS.frictionless));
    assert.equal(token.state, 'success');
    await client.customers.update(customer.uuid, {
      name: customer.name,
      phone: customer.phone,
      default_payment_token: token.token,
    });
    give(CUSTOMER, customer.uuid);
  },

  // The files the batches' file_url name, served from this machine: December's dues, two token payments of a
  // customer with a bound card; January's, a file that never finishes arriving, so that its batch is still
  // being fetched when the doc cancels it.
  'batches.md': async ({ client, give, cleanup }) => {
    const customer = await newCustomer(client, 'CUSTOMER-1001');
    const token = await client.customers.bindCard(customer.uuid, bindingCard(CARDS.frictionless));
    const files: FileServer = await startFileServer();
    cleanup(() => files.close());
    const dues = csv([
      ['Action', 'Reference Number', 'Customer UUID', 'Amount', 'Currency', 'Token ID', 'Remark'],
      ['payment', 'DUES-2026-12-001', customer.uuid, '120.00', 'HKD', token.token, 'December dues'],
      ['payment', 'DUES-2026-12-002', customer.uuid, '-5.00', 'HKD', token.token, 'A row refused by its own cells'],
    ]);
    files.served.set('/dues/2026-12.csv', (response) =>
      response.writeHead(200, { 'content-type': 'text/csv' }).end(dues),
    );
    files.served.set(
      '/dues/2027-01.csv',
      (response) => void response.writeHead(200, { 'content-type': 'text/csv' }).write('Action,'),
    );
    give('https://files.example.com/dues/2026-12.csv', `${files.url}/dues/2026-12.csv`);
    give('https://files.example.com/dues/2027-01.csv', `${files.url}/dues/2027-01.csv`);
  },

  // A paid order, ORDER-2041, whose events the doc lists and redelivers (docs/orders.md makes and pays orders).
  'webhooks.md': async ({ client }) => {
    await client.orders.create({
      reference_number: 'ORDER-2041',
      currency: 'HKD',
      charge_fee: '50.00',
      callback_url: 'https://shop.example.com/paygate/webhooks?shop=1',
    });
    await client.orders.pay({ reference_number: 'ORDER-2041' }, { credit_card: card(CARDS.visa) });
  },

  // Funds for the card network to spend (the sandbox's top-up, docs/ledger.md).
  'issuing.md': async ({ client }) => {
    await client.sandbox.topUp({ currency: 'HKD', amount: '10000.00' });
  },

  // Funds for the payouts to run on (the sandbox's top-up, docs/ledger.md).
  'payouts.md': async ({ client }) => {
    await client.sandbox.topUp({ currency: 'HKD', amount: '50000.00' });
  },

  // The merchant's inbox registered as its app's webhook endpoint, and an order whose order.created it captured.
  'lab.md': async ({ server, merchant, client, give }) => {
    const { url } = await client.inbox.list();
    await setAppWebhookUrl(server.platform, merchant.appId, url);
    await client.orders.create({ reference_number: 'ORDER-3001', currency: 'HKD', charge_fee: '30.00' });
    // A clock move returns once what fell due, the order's deliveries too, has run.
    await client.sandbox.advanceClock(1);
    const [capture] = (await client.inbox.list({ object: 'ORDER-3001' })).captures;
    assert.ok(capture, 'the inbox captured the order.created');
    give('0193a8e2-5c1f-7000-8000-0000000000c1', capture.id);
  },

  // Two unpaid orders, for the payments the doc leaves waiting for their payer (docs/orders.md makes orders).
  'sandbox.md': async ({ client }) => {
    await client.orders.create({ reference_number: 'ORDER-2041', currency: 'HKD', charge_fee: '50.00' });
    await client.orders.create({ reference_number: 'ORDER-2042', currency: 'HKD', charge_fee: '77.00' });
  },
};

interface Envelope {
  code?: unknown;
  error_code?: unknown;
  message?: unknown;
  data?: unknown;
}

const isRefusal = (shown: unknown): shown is Envelope =>
  typeof shown === 'object' && shown !== null && 'error_code' in shown;

describe('the examples in docs/', () => {
  const docs = readDocs();
  let server: TestServer;
  let operations: Operation[];

  before(async () => {
    server = await startTestServer();
    operations = await signedOperations(server.url);
  });
  after(() => server.close());

  test('every request to the signed API in docs/ is written as an example that runs', () => {
    assert.deepEqual(
      docs.flatMap((doc) => doc.strays),
      [],
      'write these as ```http blocks (see test/docs/doc-examples.ts)',
    );
    for (const doc of docs) {
      for (const example of doc.examples) {
        assert.ok(
          operationOf(operations, example.method, example.target),
          `${where(example)} names no operation of the API`,
        );
      }
    }
    for (const name of Object.keys(SETUPS))
      assert.ok(
        docs.some((doc) => doc.name === name && doc.examples.length > 0),
        `docs/${name} has examples`,
      );
  });

  test('every operation of the OpenAPI document has an example in docs/, or is listed as documented elsewhere', () => {
    const shown = new Set(
      docs.flatMap((doc) =>
        doc.examples.map((example) => operationOf(operations, example.method, example.target)?.operationId),
      ),
    );
    const missing = operations.filter(
      (operation) => !shown.has(operation.operationId) && !(operation.operationId in DOCUMENTED_ELSEWHERE),
    );
    assert.deepEqual(
      missing.map((operation) => `${operation.operationId}: ${operation.method} ${operation.path}`),
      [],
      'operations without an example in docs/',
    );
    for (const id of Object.keys(DOCUMENTED_ELSEWHERE)) {
      assert.ok(
        operations.some((operation) => operation.operationId === id),
        `${id} is an operation of the document`,
      );
      assert.ok(!shown.has(id), `${id} has an example in docs/ now: take it off the list`);
    }
  });

  for (const doc of docs.filter((file) => file.examples.length > 0)) {
    test(`docs/${doc.name}: every example runs as written, in order`, async () => {
      await runDoc(server, doc);
    });
  }
});

async function runDoc(server: TestServer, doc: DocFile): Promise<void> {
  const merchant = await server.newMerchant({ name: 'Kowloon Coffee Roasters', timezone: 'Asia/Hong_Kong' });
  const substitutions = new Substitutions();
  const cleanups: Array<() => Promise<void>> = [];
  const bed: Bed = {
    server,
    merchant,
    client: merchant.client,
    give(shown, real) {
      assert.ok(doc.text.includes(shown), `the setup of docs/${doc.name} gives ${shown}, which the doc does not use`);
      substitutions.give(shown, real);
    },
    cleanup: (step) => void cleanups.push(step),
  };
  try {
    await SETUPS[doc.name]?.(bed);
    for (const example of doc.examples) await runExample(merchant.client, substitutions, example);
  } finally {
    for (const step of cleanups) await step();
  }
}

async function runExample(client: PaygateClient, substitutions: Substitutions, example: DocExample): Promise<void> {
  const target = substitutions.apply(example.target);
  const body = example.body === undefined ? undefined : substitutions.apply(example.body);
  // The body's bytes as written (ids replaced), as `npx paygate call` sends them. A long clock move takes seconds.
  const started = Date.now();
  const reply = await client.send(example.method, target, undefined, {
    ...(body !== undefined && { rawBody: body }),
    timeoutMs: 120_000,
  });
  if (process.env.DOC_EXAMPLES_TRACE)
    console.error(`${where(example)} -> ${reply.status} in ${Date.now() - started} ms: ${reply.text.slice(0, 2000)}`);
  const envelope = reply.json as Envelope | undefined;
  const shown = example.reply?.value;
  const answered = `${where(example)}: answered ${reply.status} ${reply.text.slice(0, 500)}`;
  if (isRefusal(shown)) {
    assert.ok(reply.status >= 400, `${answered}\nThe doc shows it refused with ${String(shown.error_code)}`);
    assert.equal(envelope?.error_code, shown.error_code, answered);
    assert.equal(envelope?.code, shown.code, answered);
    if (shown.message !== undefined)
      assert.equal(envelope?.message, substitutions.apply(String(shown.message)), answered);
    return;
  }
  assert.ok(reply.status >= 200 && reply.status < 300, answered);
  if (envelope === undefined) {
    assert.equal(
      shown,
      undefined,
      `${where(example)}: the reply is not JSON (${reply.headers.get('content-type')}), the doc shows JSON`,
    );
    return;
  }
  assert.equal(envelope.code, 200, answered);
  if (shown !== undefined)
    substitutions.learn(shown, envelope.data, `${where(example)} (the reply at line ${example.reply!.line}) data`);
}

const where = (example: DocExample) => `docs/${example.file}:${example.line} ${example.method} ${example.target}`;
