import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { errorNamed } from '../support/errors.js';
import { MerchantWorld } from '../support/merchant-world.js';
import {
  type Location,
  namingLocations,
  type Operation,
  type OperationRequest,
  signedOperations,
  targetOf,
  valueAt,
  withValueAt,
} from '../support/openapi-document.js';
import { TestReceiver } from '../support/receiver.js';
import {
  type Lookup,
  type NaturalKey,
  ROUTE_FIXTURES,
  type RouteFixture,
  registryGaps,
} from '../support/route-fixtures.js';
import { type RawReply, startTestServer } from '../support/server.js';

/**
 * Tenancy, for every operation of the served OpenAPI document that names an object (DESIGN.md 2.5): merchant
 * B naming merchant A's object is answered exactly as naming an object that does not exist, and A's object is
 * unchanged; a natural key of A's (an order's reference, a payment's uuid) is just an unused key to B. The
 * operations and their naming places come from the document, what they name from test/support/route-fixtures.ts:
 * a route added without its fixture fails here.
 */

const receiver = await TestReceiver.start();
const server = await startTestServer();
const operations = await signedOperations(server.url);

interface Sent {
  status: number;
  envelope: { code?: unknown; error_code?: unknown; message?: unknown; data?: unknown };
  replayed: boolean;
}

async function send(
  world: MerchantWorld,
  operation: Operation,
  request: OperationRequest,
  headers: Record<string, string> = {},
): Promise<Sent> {
  const body = request.body === undefined ? undefined : JSON.stringify(request.body);
  const reply: RawReply = await world.sendRaw(operation.method, targetOf(operation, request), body, headers);
  // A file (result.csv) answers its owner with the file itself.
  if (operation.fileType !== undefined && reply.status === 200)
    return { status: reply.status, envelope: { code: 200, data: reply.text }, replayed: false };
  assert.ok(reply.json !== undefined, `${operation.operationId}: the reply is JSON: ${reply.text.slice(0, 200)}`);
  return { status: reply.status, envelope: reply.json, replayed: reply.headers['idempotent-replayed'] === 'true' };
}

function assertSucceeded(sent: Sent, what: string): void {
  assert.ok(
    sent.status >= 200 && sent.status < 300,
    `${what}: got ${sent.status} ${JSON.stringify(sent.envelope).slice(0, 400)}`,
  );
}

/** The reply with the value the request named written as `<named>`: replies may echo what they were asked. */
function withNamedValueHidden(envelope: unknown, named: string): unknown {
  return JSON.parse(JSON.stringify(envelope).split(JSON.stringify(named).slice(1, -1)).join('<named>'));
}

// Values a fresh object gets of its own: they differ between two objects made alike.
const MADE_VALUES: ReadonlyArray<readonly [RegExp, string]> = [
  [/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/i, '<uuid>'],
  [/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/, '<time>'],
  [/^https?:\/\//, '<url>'],
  [/^[0-9a-f]{32}$/, '<token>'],
  [/^\d{12,}$/, '<number>'],
];

/**
 * What the acquirer makes up for each transaction (derived from its uuid), and the issuer for each card (its number,
 * drawn at random).
 */
const ACQUIRER_MADE_FIELDS = new Set(['auth_code', 'receipt_id', 'rrn', 'last_4_digits', 'pan']);

/** A reply with the values that a freshly made object has of its own replaced by their kind. */
function withMadeValuesHidden(value: unknown): unknown {
  if (typeof value === 'string') return MADE_VALUES.find(([pattern]) => pattern.test(value))?.[1] ?? value;
  if (Array.isArray(value)) return value.map(withMadeValuesHidden);
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value).map(([key, item]) => [
        key,
        ACQUIRER_MADE_FIELDS.has(key) ? `<${key}>` : withMadeValuesHidden(item),
      ]),
    );
  }
  return value;
}

/** The identifiers in a read-back object (uuids, order numbers, tokens): none may show in another merchant's reply. */
function identifiersIn(value: unknown, found = new Set<string>()): Set<string> {
  if (
    typeof value === 'string' &&
    MADE_VALUES.some(([pattern, kind]) => kind !== '<time>' && kind !== '<url>' && pattern.test(value))
  )
    found.add(value);
  else if (Array.isArray(value)) for (const item of value) identifiersIn(item, found);
  else if (value !== null && typeof value === 'object')
    for (const item of Object.values(value)) identifiersIn(item, found);
  return found;
}

/** Every place the test tries: the document's naming places, and those the fixture adds (filters, say). */
function placesOf(operation: Operation, fixture: RouteFixture | undefined): Location[] {
  return [...new Set([...namingLocations(operation), ...Object.keys(fixture?.names ?? {})])];
}

describe("another merchant's objects are answered exactly as unknown ones", () => {
  let owner: MerchantWorld;
  let other: MerchantWorld;

  before(async () => {
    owner = await MerchantWorld.build(server, await server.newMerchant({ name: 'Owner' }), `${receiver.url}/owner`);
    other = await MerchantWorld.build(server, await server.newMerchant({ name: 'Other' }), `${receiver.url}/other`);
  });
  after(async () => {
    // A failing close (a route that broke its contract) must not leave the receiver holding the process open.
    try {
      await server.close();
    } finally {
      await receiver.close();
    }
  });

  test('every operation of the document has a fixture, and every naming place says what it names', () => {
    assert.deepEqual(registryGaps(operations), []);
  });

  for (const operation of operations) {
    const fixture = ROUTE_FIXTURES[operation.operationId];
    for (const location of placesOf(operation, fixture)) {
      const naming = fixture?.names?.[location];
      // The fixture says why such a place names nothing of a merchant's (a card number, say).
      if (naming?.kind === 'not-an-object') continue;
      test(`${operation.operationId} (${operation.method} ${operation.path}) ${location}`, async () => {
        assert.ok(
          fixture,
          `operationId ${operation.operationId} names objects and needs a fixture in test/support/route-fixtures.ts`,
        );
        assert.ok(naming, `operationId ${operation.operationId}: say what ${location} names in its fixture's names`);
        if (naming.kind === 'lookup') await checkLookup(operation, fixture, location, naming);
        else await checkNaturalKey(operation, fixture, location, naming);
      });
    }
  }

  async function checkLookup(
    operation: Operation,
    fixture: RouteFixture,
    location: Location,
    naming: Lookup,
  ): Promise<void> {
    const build = naming.request ?? fixture.valid;
    const ownersRequest = await build(owner);
    const ownersValue = valueAt(ownersRequest, location);
    assert.equal(
      typeof ownersValue,
      'string',
      `the owner's valid request of ${operation.operationId} names an object at ${location}`,
    );
    const named = ownersValue as string;
    const before = await owner.readBack(named);

    const othersRequest = await build(other);
    const unknownValue = naming.unknown();
    const asUnknown = await send(other, operation, withValueAt(othersRequest, location, unknownValue));
    const asOwners = await send(other, operation, withValueAt(othersRequest, location, named));

    if (naming.answer === 'success') assertSucceeded(asUnknown, 'a filter naming nothing');
    else
      assert.equal(
        asUnknown.envelope.error_code,
        errorNamed(naming.answer).code,
        `an unknown value is answered ${naming.answer}: ${JSON.stringify(asUnknown.envelope)}`,
      );
    assert.equal(asOwners.status, asUnknown.status, 'the same status as for an unknown value');
    assert.deepEqual(
      withNamedValueHidden(asOwners.envelope, named),
      withNamedValueHidden(asUnknown.envelope, unknownValue),
      'the same reply as for an unknown value',
    );
    assert.deepEqual(await owner.readBack(named), before, "the owner's object is unchanged");

    // The value named a live object: the owner's own request with it still succeeds.
    assertSucceeded(await send(owner, operation, ownersRequest), `${operation.operationId} by the owner`);
  }

  async function checkNaturalKey(
    operation: Operation,
    fixture: RouteFixture,
    location: Location,
    naming: NaturalKey,
  ): Promise<void> {
    const build = naming.request ?? fixture.valid;
    const ownersRequest = await build(owner);
    const ownersReply = await send(owner, operation, ownersRequest);
    assertSucceeded(ownersReply, `${operation.operationId} by the owner`);
    const key = valueAt(ownersRequest, location);
    assert.equal(
      typeof key,
      'string',
      `the owner's valid request of ${operation.operationId} has a key at ${location}`,
    );
    const before = await naming.readBack(owner, ownersReply.envelope.data);

    const unusedKey = naming.unused();
    const withUnusedKey = await send(other, operation, withValueAt(await build(other), location, unusedKey));
    const withOwnersKey = await send(other, operation, withValueAt(await build(other), location, key as string));
    assertSucceeded(withUnusedKey, `${operation.operationId} with an unused key`);
    assert.equal(withOwnersKey.status, withUnusedKey.status, 'the same status as with an unused key');
    assert.deepEqual(
      withMadeValuesHidden(withNamedValueHidden(withOwnersKey.envelope, key as string)),
      withMadeValuesHidden(withNamedValueHidden(withUnusedKey.envelope, unusedKey)),
      'a fresh object of its own, as with an unused key',
    );
    const reply = JSON.stringify(withOwnersKey.envelope);
    const shown = [...identifiersIn(before)].filter((identifier) => identifier !== key && reply.includes(identifier));
    assert.deepEqual(shown, [], "the reply shows nothing of the owner's object");
    assert.deepEqual(
      await naming.readBack(owner, ownersReply.envelope.data),
      before,
      "the owner's object is unchanged",
    );
  }

  // An operation that changes the whole merchant (its clock, or its whole world: a reset) is tried on merchants of
  // their own, so that the owner's world stays as the other tests made it.
  let isolated: Promise<[MerchantWorld, MerchantWorld]> | undefined;
  const worldsFor = async (fixture: RouteFixture): Promise<[MerchantWorld, MerchantWorld]> => {
    if (!fixture.isolated) return [owner, other];
    isolated ??= (async () => [
      await MerchantWorld.build(
        server,
        await server.newMerchant({ name: 'Owner, alone' }),
        `${receiver.url}/owner-alone`,
      ),
      await MerchantWorld.build(
        server,
        await server.newMerchant({ name: 'Other, alone' }),
        `${receiver.url}/other-alone`,
      ),
    ])();
    return isolated;
  };

  // An Idempotency-Key names a stored reply, per merchant: another merchant's key is an unused one.
  for (const operation of operations.filter((op) => op.method === 'POST' || op.method === 'PUT')) {
    test(`${operation.operationId} (${operation.method} ${operation.path}): an Idempotency-Key of another merchant is an unused one`, async () => {
      const fixture = ROUTE_FIXTURES[operation.operationId];
      assert.ok(fixture, `operationId ${operation.operationId} needs a fixture in test/support/route-fixtures.ts`);
      const [owner, other] = await worldsFor(fixture);
      const key = `key-${randomUUID()}`;
      const ownersReply = await send(owner, operation, await fixture.valid(owner), { 'idempotency-key': key });
      assertSucceeded(ownersReply, `${operation.operationId} by the owner`);
      const withOwnersKey = await send(other, operation, await fixture.valid(other), { 'idempotency-key': key });
      assertSucceeded(withOwnersKey, `${operation.operationId} with another merchant's Idempotency-Key`);
      assert.equal(withOwnersKey.replayed, false, "the owner's reply is not replayed to another merchant");
      const reply = JSON.stringify(withOwnersKey.envelope);
      const shown = [...identifiersIn(ownersReply.envelope.data)].filter((identifier) => reply.includes(identifier));
      assert.deepEqual(shown, [], "the reply shows nothing of the owner's");
    });
  }
});
