import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ERRORS } from '../../src/modules.js';
import { envelopeCode } from '../../src/platform/errors.js';
import { type ErrorName, errorNamed } from '../support/errors.js';
import {
  decoyMember,
  deepArrays,
  deepObjects,
  HOSTILE_KEYS,
  hostileSegment,
  hostileValue,
  hugeString,
  json,
  jsonText,
  NOT_JSON_TEXT,
  POLLUTION_KEY,
  PROTO_IN_TEXT,
  PROTO_OBJECT,
  pollutingMember,
  RawJson,
  RawMember,
  Rng,
  randomQuery,
  randomUnicode,
  refusedByHttpParser,
  WHOLE_BODY_SCALARS,
  withInvalidUtf8,
} from '../support/hostile-input.js';
import { MerchantWorld } from '../support/merchant-world.js';
import {
  isRecord,
  type Location,
  type Operation,
  type OperationRequest,
  type SchemaSite,
  schemaSites,
  signedOperations,
  targetOf,
  typesOf,
  valueAt,
  wellFormed,
  withValueAt,
} from '../support/openapi-document.js';
import { TestReceiver } from '../support/receiver.js';
import {
  fixtureOf,
  type Lookup,
  type NaturalKey,
  operationsWithoutFixture,
  type RouteFixture,
} from '../support/route-fixtures.js';
import {
  bodyCandidates,
  type Candidate,
  exactValueOf,
  holdsNul,
  limitBreakers,
  SchemaJudge,
  textCandidates,
} from '../support/schema-values.js';
import { type RawReply, signedRaw, startTestServer } from '../support/server.js';

/**
 * Signed, hostile requests to every operation of the served OpenAPI document (every path under /svc/, sandbox
 * routes and aliases included): none may get a 5xx or leave the envelope, each must succeed with its valid
 * request, and an input whose answer is certain must get it. Valid requests come from
 * test/support/route-fixtures.ts; the hostile ones mutate them, most from the operation's documented schema.
 *
 * `FUZZ_SEED=<n>` replays a run's inputs exactly; every failure names its seed. `FUZZ_CASES=<n>` sends n cases
 * to every operation. Without it each gets 1,100 (or `FUZZ_DEFAULT_CASES`), less the share its fixture declares for
 * operations that do much per request. CI sends fewer, the same seed's first cases; its Node 22 pass leaves the
 * fuzz out (.ci/run). The long run (issue 17):
 *
 *     FUZZ_CASES=10000 npm test -- fuzz
 *
 * `FUZZ_SHARD=k/n` fuzzes only the k-th of n equal runs of the operations, in the document's order: n processes
 * (`FUZZ_SHARD=1/2` and `FUZZ_SHARD=2/2`) share the long run between a machine's cores. `FUZZ_ONLY=opA,opB`
 * fuzzes only the operations of those operationIds (a failure's replay, or the rest of a long run cut short).
 */
const SEED = Number(process.env.FUZZ_SEED ?? 20260611) >>> 0;
const DEFAULT_CASES = process.env.FUZZ_DEFAULT_CASES === undefined ? 1_100 : Number(process.env.FUZZ_DEFAULT_CASES);
const CASES = process.env.FUZZ_CASES === undefined ? undefined : Number(process.env.FUZZ_CASES);
const SHARD = /^(\d+)\/(\d+)$/.exec(process.env.FUZZ_SHARD ?? '1/1');
const CONCURRENCY = 8;
const BODY_LIMIT = 1024 * 1024;
/** Nesting deep enough that a recursive walker would overflow the stack. */
const DEEP = 10_000;
/** The router refuses a path parameter longer than this before anything else sees it. */
const MAX_PATH_PARAMETER = 100;

const STATUS_OF_CODE = new Map<string, number>(Object.values(ERRORS).map((e) => [e.code, e.status]));
const codeOf = (name: ErrorName): number => envelopeCode(errorNamed(name));

// Envelope `code`s, for the inputs whose answer is certain.
const OK = 200;
const NOT_JSON = codeOf('bodyNotJson');
const NOT_UTF8 = codeOf('bodyNotUtf8');
const FORBIDDEN_KEY = codeOf('bodyForbiddenKey');
const TOO_LARGE = codeOf('bodyTooLarge');
const INVALID = codeOf('validationFailed');
const MEDIA_UNSUPPORTED = codeOf('mediaTypeUnsupported');
const REQUEST_MALFORMED = codeOf('requestMalformed');
const SIGNATURE_INVALID = codeOf('signatureInvalid');

assert.ok(
  Number.isInteger(DEFAULT_CASES) && DEFAULT_CASES > 0,
  `FUZZ_DEFAULT_CASES must be a positive whole number, not ${process.env.FUZZ_DEFAULT_CASES}`,
);
assert.ok(
  SHARD && Number(SHARD[1]) >= 1 && Number(SHARD[1]) <= Number(SHARD[2]),
  `FUZZ_SHARD must be k/n with 1 <= k <= n, not ${process.env.FUZZ_SHARD}`,
);
assert.ok(
  CASES === undefined || (Number.isInteger(CASES) && CASES > 0),
  `FUZZ_CASES must be a positive whole number, not ${process.env.FUZZ_CASES}`,
);

interface FuzzCase {
  /** What kind of input this is, for the failure message. */
  label: string;
  target: string;
  body?: string | Buffer;
  headers?: Record<string, string>;
  /** Envelope codes this input may get, when the input alone decides the answer. */
  expect?: readonly number[];
}

type Codes = readonly number[] | undefined;

/** A place of the request that names an existing object, with the values to try there. */
interface LookupPlace {
  location: Location;
  naming: Lookup;
  /** Valid requests that name the object at this place. */
  templates: OperationRequest[];
  own: string;
  /** The same kind of object, of another merchant. */
  foreign: string;
}

/** What the case generators know about one operation. */
interface Route {
  operation: Operation;
  fixture: RouteFixture;
  world: MerchantWorld;
  /** Valid requests: the fixture's, and those of the naming places that need their own. */
  templates: OperationRequest[];
  lookups: LookupPlace[];
  naturalKeys: Array<{ location: Location; naming: NaturalKey }>;
  sites: SchemaSite[];
}

const judge = new SchemaJudge();

// ---------------------------------------------------------------------------------------------------------
// What a request must get

/** OK for an input the route accepts, when sending it again is accepted again. */
const acceptedIfRepeatable = (route: Route): Codes => (route.fixture.repeatable ? [OK] : undefined);
const takesBody = (route: Route): boolean => route.operation.body !== undefined;
const answerOf = (naming: Lookup): readonly number[] => (naming.answer === 'success' ? [OK] : [codeOf(naming.answer)]);

/**
 * The codes a request must get when its input alone decides, else `semantic` (what its case kind implies for
 * a request the schema accepts). The body is judged only when the test knows exactly what the server decodes.
 */
function expected(
  route: Route,
  request: OperationRequest,
  target: string,
  body: string | undefined,
  semantic: Codes,
): Codes {
  if (refusedByHttpParser(target)) return [REQUEST_MALFORMED];
  if (Object.values(request.path).some((value) => wellFormed(value).length > MAX_PATH_PARAMETER))
    return [REQUEST_MALFORMED];
  // A GET's body is not read: a signature over one does not verify.
  if (route.operation.method === 'GET' && body) return [SIGNATURE_INVALID];
  if (body !== undefined && Buffer.byteLength(body) > BODY_LIMIT) return [TOO_LARGE];
  const decoded = body === undefined ? { value: undefined } : exactValueOf(body);
  if (!decoded) return undefined;
  if (holdsNul(decoded.value)) return [INVALID];
  if (judge.violates(route.operation, { ...request, body: decoded.value })) return [INVALID];
  return semantic;
}

/** A case from a request as the client means it; `rawQuery` is appended as written. */
function requestCase(route: Route, label: string, request: OperationRequest, semantic: Codes, rawQuery = ''): FuzzCase {
  const body = request.body === undefined ? undefined : jsonText(request.body);
  const base = targetOf(route.operation, request);
  const target = rawQuery === '' ? base : `${base}${base.includes('?') ? `&${rawQuery.slice(1)}` : rawQuery}`;
  // A query the operation does not declare is ignored; one merged into declared parameters may change the answer.
  const knownQuery = rawQuery === '' || route.operation.queryParameters.length === 0;
  const expect = expected(route, request, target, body, knownQuery ? semantic : undefined);
  return {
    label: rawQuery ? `${label} + hostile query` : label,
    target,
    ...(body !== undefined && { body }),
    ...(expect && { expect }),
  };
}

/** A case with a body written as given (text or bytes). */
function bodyCase(
  route: Route,
  label: string,
  request: OperationRequest,
  body: string | Buffer,
  expect: Codes,
  headers?: Record<string, string>,
): FuzzCase {
  const target = targetOf(route.operation, request);
  const codes = refusedByHttpParser(target)
    ? [REQUEST_MALFORMED]
    : route.operation.method === 'GET' && body.length > 0
      ? [SIGNATURE_INVALID]
      : expect;
  return { label, target, body, ...(headers && { headers }), ...(codes && { expect: codes }) };
}

/** A JSON text body: judged when exact; otherwise `fallback`. */
function jsonBodyCase(
  route: Route,
  label: string,
  request: OperationRequest,
  text: string,
  semantic: Codes,
  fallback: Codes,
): FuzzCase {
  const target = targetOf(route.operation, request);
  const exact = exactValueOf(text) !== undefined;
  const expect = exact
    ? expected(route, request, target, text, semantic)
    : bodyCase(route, label, request, text, fallback).expect;
  return { label, target, body: text, ...(expect && { expect }) };
}

// ---------------------------------------------------------------------------------------------------------
// Case kinds

function withFreshNaturalKeys(route: Route, request: OperationRequest): OperationRequest {
  return route.naturalKeys.reduce(
    (result, { location, naming }) =>
      valueAt(result, location) === undefined ? result : withValueAt(result, location, naming.unused()),
    request,
  );
}

function validCase(rng: Rng, route: Route): FuzzCase {
  const query = rng.chance(0.3) ? randomQuery(rng) : '';
  return requestCase(route, 'valid', rng.pick(route.templates), acceptedIfRepeatable(route), query);
}

/** Another merchant's object, an unknown one, or the own one in other letter case: all name nothing. */
function lookupCase(rng: Rng, route: Route, place = rng.pick(route.lookups), which?: 'foreign' | 'unknown'): FuzzCase {
  const upper = place.own.toUpperCase();
  const choice =
    which ??
    rng.weighted<'foreign' | 'unknown' | 'upper'>([
      [2, () => 'foreign'],
      [1, () => 'unknown'],
      [upper === place.own ? 0 : 1, () => 'upper'],
    ]);
  const value = { foreign: place.foreign, unknown: place.naming.unknown(), upper }[choice];
  const label = { foreign: "another merchant's", unknown: 'unknown', upper: 'upper-case' }[choice];
  const request = withFreshNaturalKeys(route, withValueAt(rng.pick(place.templates), place.location, value));
  const query = which === undefined && rng.chance(0.2) ? randomQuery(rng) : '';
  return requestCase(route, `${label} ${place.location}`, request, answerOf(place.naming), query);
}

/** One value from the place's schema: a violation, an edge, or a value within the limits. */
function schemaCase(rng: Rng, route: Route): FuzzCase {
  const site = rng.pick(route.sites);
  const candidates = (site.location.startsWith('body') ? bodyCandidates(rng, site) : textCandidates(rng, site)).filter(
    (candidate) => fitsSite(site, candidate),
  );
  return siteCase(route, rng.pick(route.templates), site, rng.pick(candidates));
}

/** A path parameter is always there, as text. */
const fitsSite = (site: SchemaSite, { value }: Candidate): boolean =>
  !site.location.startsWith('path.') || typeof value === 'string';

/** For every place of the schema, once: a value of a wrong type, and each value just past a documented limit. */
function limitCases(route: Route): FuzzCase[] {
  return route.sites.flatMap((site) =>
    limitBreakers(site, !site.location.startsWith('body'))
      .filter((candidate) => fitsSite(site, candidate))
      .map((candidate) => siteCase(route, route.templates[0]!, site, candidate)),
  );
}

/**
 * The value at the place, judged against the schema alone: a value within it may name an object that other
 * cases made (an order with reference "x"), so only lookupCase says what a name that names nothing gets.
 */
function siteCase(route: Route, template: OperationRequest, site: SchemaSite, candidate: Candidate): FuzzCase {
  return requestCase(
    route,
    `${site.location}: ${candidate.label}`,
    withValueAt(template, site.location, candidate.value),
    undefined,
  );
}

/** Where an object sits in a body, for members put into it (raw text is no object to put members in). */
function objectLocations(value: unknown, location: Location = 'body'): Location[] {
  if (Array.isArray(value)) return value.length > 0 ? objectLocations(value[0], `${location}[]`) : [];
  if (!isRecord(value) || Object.getPrototypeOf(value) !== Object.prototype) return [];
  return [location, ...Object.entries(value).flatMap(([key, item]) => objectLocations(item, `${location}.${key}`))];
}

/** The request with a member written as raw text in one of its body's objects (the body made if it has none). */
function withMember(rng: Rng, request: OperationRequest, member: string): OperationRequest {
  const base = objectLocations(request.body).length > 0 ? request : { ...request, body: {} };
  const at = rng.pick(objectLocations(base.body));
  return withValueAt(base, `${at}.\u0001member${rng.int(0, 1e9)}`, new RawMember(member));
}

/** One to three hostile changes: a value set to a hostile one, removed, a key duplicated, a hostile key added. */
function mutatedCase(rng: Rng, route: Route): FuzzCase {
  let request = rng.pick(route.templates);
  const bodySites = route.sites.filter(({ location }) => location.startsWith('body.'));
  for (let changes = rng.int(1, 3); changes > 0; changes -= 1) {
    const present = objectLocations(request.body).slice(1);
    rng.weighted<void>([
      [
        bodySites.length > 0 ? 5 : 0,
        () => {
          request = withValueAt(request, rng.pick(bodySites).location, new RawJson(hostileValue(rng)));
        },
      ],
      [
        present.length > 0 ? 1 : 0,
        () => {
          request = withValueAt(request, rng.pick(present), undefined);
        },
      ],
      [
        isRecord(request.body) ? 1 : 0,
        () => {
          const key = rng.pick(Object.keys(request.body as object).concat('name'));
          request = withMember(rng, request, `${json(key)}:${hostileValue(rng)}`);
        },
      ],
      [
        1,
        () => {
          const key = rng.chance(0.5) ? rng.pick(HOSTILE_KEYS) : randomUnicode(rng, 20);
          request = withMember(rng, request, `${json(key)}:${hostileValue(rng)}`);
        },
      ],
    ]);
  }
  const ignored = takesBody(route) ? undefined : acceptedIfRepeatable(route);
  return jsonBodyCase(route, 'mutated fields', request, jsonText(request.body ?? {}), ignored, undefined);
}

/**
 * Where a body grows: the fixture's free text (any text within its length is accepted), another text field of
 * the request (whose content may be refused), or, for a route with neither, a key nobody reads.
 */
type GrowingSite = { location: Location; kind: 'free text' | 'text field' | 'unread key' };

function growingSite(rng: Rng, route: Route, request: OperationRequest): GrowingSite {
  if (route.fixture.freeText) return { location: route.fixture.freeText, kind: 'free text' };
  const texts = route.sites.filter(
    (site) =>
      site.location.startsWith('body.') &&
      typesOf(site.schema).has('string') &&
      typeof valueAt(request, site.location) === 'string',
  );
  if (texts.length > 0) return { location: rng.pick(texts).location, kind: 'text field' };
  return { location: 'body.padding', kind: 'unread key' };
}

/** Text the schema allows there is accepted, as the valid request it grew from is. */
const takesAnyText = (site: GrowingSite): boolean => site.kind !== 'text field';

/**
 * What a deeply nested body gets: a parser may give up on it (refused as not JSON), else it is judged as any
 * body: an array is no object, an object of unknown keys lacks the required ones, and a text field holding it
 * has the wrong type; a key nobody reads, or a route that reads no body, ignores it.
 */
function deepAnswer(route: Route, shape: 'array' | 'object' | GrowingSite): Codes {
  const ignored = route.fixture.repeatable ? [OK, NOT_JSON] : undefined;
  if (!takesBody(route)) return ignored;
  if (shape === 'array') return [INVALID, NOT_JSON];
  if (shape === 'object') return (route.operation.body?.required ?? []).length > 0 ? [INVALID, NOT_JSON] : undefined;
  return shape.kind === 'unread key' ? ignored : [INVALID, NOT_JSON];
}

/** A valid request's body grown to exactly `size` bytes. */
function bodyOfSize(
  rng: Rng,
  route: Route,
  size: number,
): { request: OperationRequest; body: string; site: GrowingSite } {
  const template = route.templates[0]!;
  const site = growingSite(rng, route, template);
  const empty = jsonText(withValueAt(template, site.location, '').body);
  const request = withValueAt(template, site.location, 'x'.repeat(size - Buffer.byteLength(empty)));
  return { request, body: jsonText(request.body), site };
}

function hugeStringCase(rng: Rng, route: Route): FuzzCase {
  const template = rng.pick(route.templates);
  const site = growingSite(rng, route, template);
  const request = withValueAt(template, site.location, hugeString(rng));
  return requestCase(
    route,
    `huge string at ${site.location}`,
    request,
    takesAnyText(site) ? acceptedIfRepeatable(route) : undefined,
  );
}

function pollutedCase(rng: Rng, route: Route): FuzzCase {
  const template = rng.pick(route.templates);
  const bodySites = route.sites.filter(({ location }) => location.startsWith('body.'));
  const { label, request } = rng.weighted<{ label: string; request: OperationRequest }>([
    [1, () => ({ label: '__proto__ as the whole body', request: { ...template, body: new RawJson(PROTO_OBJECT) } })],
    [
      bodySites.length > 0 ? 2 : 0,
      () => ({
        label: '__proto__ as a field value',
        request: withValueAt(template, rng.pick(bodySites).location, new RawJson(PROTO_OBJECT)),
      }),
    ],
    [
      7,
      () => {
        const { label: memberLabel, member } = pollutingMember(rng);
        return { label: memberLabel, request: withMember(rng, template, member) };
      },
    ],
  ]);
  return bodyCase(route, label, request, jsonText(request.body), [FORBIDDEN_KEY]);
}

/** Harmless look-alikes of pollution: the route answers as for the valid request. */
function decoyCase(rng: Rng, route: Route): FuzzCase {
  const template = rng.pick(route.templates);
  if (rng.chance(0.33)) {
    const site = growingSite(rng, route, template);
    const request = withValueAt(template, site.location, PROTO_IN_TEXT);
    return requestCase(
      route,
      '__proto__ inside a string',
      request,
      takesAnyText(site) ? acceptedIfRepeatable(route) : undefined,
    );
  }
  const { label, key, value } = decoyMember(rng);
  const body = { ...(isRecord(template.body) ? template.body : {}) };
  Object.defineProperty(body, key, { value, enumerable: true });
  return requestCase(route, label, { ...template, body }, acceptedIfRepeatable(route));
}

/** A key twice in one object: which one counts is the parser's choice. */
function duplicateKeyCase(rng: Rng, route: Route): FuzzCase {
  const template = rng.pick(route.templates);
  const keys = isRecord(template.body) ? Object.keys(template.body) : [];
  const key = keys.length > 0 ? rng.pick(keys) : 'a';
  const value = rng.chance(0.5) ? hostileValue(rng) : jsonText(valueAt(template, `body.${key}`) ?? 1);
  const request = withMember(rng, template, `${json(key)}:${value}`);
  return jsonBodyCase(route, `duplicate key ${key}`, request, jsonText(request.body), undefined, undefined);
}

function hostilePathCase(rng: Rng, route: Route): FuzzCase {
  const template = rng.pick(route.templates);
  const parameter = rng.pick(route.operation.pathParameters).name;
  const segment = hostileSegment(rng, template.path[parameter] ?? 'x');
  // The segment goes on the wire as written; the other parameters are encoded as usual.
  const marker = `\u0001${parameter}\u0001`;
  const target = targetOf(route.operation, withValueAt(template, `path.${parameter}`, marker)).replace(
    encodeURIComponent(marker),
    segment,
  );
  const body = template.body === undefined ? undefined : jsonText(template.body);
  const expect = refusedByHttpParser(target) ? [REQUEST_MALFORMED] : undefined;
  return { label: `hostile path ${parameter}`, target, ...(body !== undefined && { body }), ...(expect && { expect }) };
}

function hostileQueryCase(rng: Rng, route: Route): FuzzCase {
  let query = randomQuery(rng);
  while (query === '') query = randomQuery(rng);
  return requestCase(route, 'valid', rng.pick(route.templates), acceptedIfRepeatable(route), query);
}

function randomBodyCase(rng: Rng, route: Route): FuzzCase {
  const template = rng.pick(route.templates);
  const valid = jsonText(template.body ?? {});
  const depth = rng.pick([100, 1_000, DEEP, DEEP * 5]);
  const text = (label: string, body: string, expect: Codes) => bodyCase(route, label, template, body, expect);
  return rng.weighted<FuzzCase>([
    [2, () => wholeBodyCase(route, template, 'hostile whole body', hostileValue(rng))],
    [2, () => wholeBodyCase(route, template, 'scalar whole body', rng.pick(WHOLE_BODY_SCALARS))],
    [2, () => text(`${depth} nested arrays`, deepArrays(depth), deepAnswer(route, 'array'))],
    [2, () => deepInFieldCase(rng, route, template, `${depth} nested in a field`, deepObjects(depth))],
    [1, () => text(`${depth} unbalanced brackets`, deepArrays(depth).slice(0, -1), [NOT_JSON])],
    [
      6,
      () => {
        const { label, body } = withInvalidUtf8(rng, valid);
        return bodyCase(route, label, template, body, [NOT_UTF8]);
      },
    ],
    [6, () => pollutedCase(rng, route)],
    [3, () => decoyCase(rng, route)],
    [5, () => text('truncated', valid.slice(0, rng.int(1, valid.length - 1)), [NOT_JSON])],
    [3, () => text('not JSON', rng.pick(NOT_JSON_TEXT), [NOT_JSON])],
    // '@' can start no JSON text, so random bytes after it are never valid JSON, and may not be UTF-8 either.
    [
      2,
      () =>
        bodyCase(route, 'random bytes', template, Buffer.concat([Buffer.from('@'), rng.bytes(rng.int(1, 2_000))]), [
          NOT_JSON,
          NOT_UTF8,
        ]),
    ],
    [2, () => hugeStringCase(rng, route)],
    [2, () => duplicateKeyCase(rng, route)],
  ]);
}

/**
 * A whole body of any JSON: a route that takes an object refuses anything else; a route that takes no body
 * decodes it (and may refuse it for that), then ignores it.
 */
function wholeBodyCase(route: Route, template: OperationRequest, label: string, text: string): FuzzCase {
  const ignored = takesBody(route) ? undefined : acceptedIfRepeatable(route);
  const notAnObject = takesBody(route) ? [INVALID] : ignored;
  const fallback = text.trimStart().startsWith('{') ? undefined : notAnObject;
  return jsonBodyCase(
    route,
    label === 'scalar whole body' ? `whole body ${text}` : label,
    template,
    text,
    ignored,
    fallback,
  );
}

function deepInFieldCase(rng: Rng, route: Route, template: OperationRequest, label: string, nested: string): FuzzCase {
  const site = growingSite(rng, route, template);
  const body = jsonText(withValueAt(template, site.location, new RawJson(nested)).body);
  return bodyCase(route, `${label} (${site.location})`, template, body, deepAnswer(route, site));
}

function randomCase(rng: Rng, route: Route): FuzzCase {
  const { operation } = route;
  const hasBodyCases = operation.method !== 'GET';
  return rng.weighted<FuzzCase>([
    [6, () => validCase(rng, route)],
    [route.sites.length > 0 ? 24 : 0, () => schemaCase(rng, route)],
    [route.lookups.length > 0 ? 6 : 0, () => lookupCase(rng, route)],
    [hasBodyCases ? 14 : 0, () => mutatedCase(rng, route)],
    [hasBodyCases ? 40 : 0, () => randomBodyCase(rng, route)],
    [operation.pathParameters.length > 0 ? 8 : 0, () => hostilePathCase(rng, route)],
    [3, () => hostileQueryCase(rng, route)],
    [
      hasBodyCases ? 0 : 2,
      () => bodyCase(route, 'a body on a GET', rng.pick(route.templates), hostileValue(rng), [SIGNATURE_INVALID]),
    ],
  ]);
}

/** Inputs whose answer is known, sent once to every route. */
function edgeCases(rng: Rng, route: Route): FuzzCase[] {
  const lookups = route.lookups.flatMap((place) => [
    lookupCase(rng, route, place, 'foreign'),
    lookupCase(rng, route, place, 'unknown'),
  ]);
  const limits = limitCases(route);
  const template = route.templates[0]!;
  if (route.operation.method === 'GET') {
    return [...lookups, ...limits, bodyCase(route, 'a body on a GET', template, json({ a: 1 }), [SIGNATURE_INVALID])];
  }
  const withoutBody = { ...template, body: undefined };
  const exact = bodyOfSize(rng, route, BODY_LIMIT);
  const over = bodyOfSize(rng, route, BODY_LIMIT + 1);
  const text = (label: string, body: string, expect: Codes) => bodyCase(route, label, template, body, expect);
  return [
    ...lookups,
    ...limits,
    requestCase(route, 'no body', withoutBody, acceptedIfRepeatable(route)),
    // Node's client sends an empty body as a chunked one (asked for, for a DELETE), and without a content type.
    bodyCase(route, 'empty chunked body', template, '', [MEDIA_UNSUPPORTED], { 'transfer-encoding': 'chunked' }),
    jsonBodyCase(
      route,
      'body of exactly the limit',
      exact.request,
      exact.body,
      takesAnyText(exact.site) ? acceptedIfRepeatable(route) : undefined,
      undefined,
    ),
    bodyCase(route, 'body one byte over the limit', over.request, over.body, [TOO_LARGE]),
    text(`${DEEP} nested arrays`, deepArrays(DEEP), deepAnswer(route, 'array')),
    text(`${DEEP * 10} nested arrays`, deepArrays(DEEP * 10), deepAnswer(route, 'array')),
    text(`${DEEP} nested objects`, deepObjects(DEEP), deepAnswer(route, 'object')),
    deepInFieldCase(rng, route, template, `${DEEP} nested arrays in a field`, deepArrays(DEEP)),
    text(`${DEEP} unclosed arrays`, '['.repeat(DEEP), [NOT_JSON]),
    text(`__proto__ ${DEEP} deep`, jsonText(withMember(rng, template, `"x":${deepObjects(DEEP, PROTO_OBJECT)}`).body), [
      FORBIDDEN_KEY,
      NOT_JSON,
    ]),
    ...WHOLE_BODY_SCALARS.map((scalar) => wholeBodyCase(route, template, 'scalar whole body', scalar)),
  ];
}

function* routeCases(rng: Rng, route: Route, count: number): Generator<FuzzCase> {
  const edges = edgeCases(rng, route);
  yield* edges;
  for (let i = edges.length; i < count; i += 1) yield randomCase(rng, route);
}

// ---------------------------------------------------------------------------------------------------------
// Checking replies

/** Why the reply breaks the envelope contract or the case's expectation; undefined when it is fine. */
function replyProblem(reply: RawReply, fuzzCase: FuzzCase, fileType?: string): string | undefined {
  if (reply.status >= 500) return `status ${reply.status}`;
  if (!reply.headers['x-request-id']) return 'no x-request-id header';
  if (reply.status === 200 && fileType !== undefined) {
    // A file (result.csv) is its own success, in its media type; failures are still the envelope.
    return reply.headers['content-type'] === fileType
      ? undefined
      : `a 200 reply of ${reply.headers['content-type']}, not the file (${fileType})`;
  }
  const envelope: unknown = reply.json;
  if (!isRecord(envelope)) return 'the reply is not a JSON object';
  if (!Number.isInteger(envelope.code)) return 'code is not an integer';
  if (reply.status === 200) {
    // Operation 3's data is the array of records itself (interface.md); every other reply's is an object.
    if (envelope.code !== 200 || !(isRecord(envelope.data) || Array.isArray(envelope.data)))
      return 'a 200 reply without code 200 and an object (or array) as data';
  } else {
    const errorCode = envelope.error_code;
    if (typeof errorCode !== 'string' || !STATUS_OF_CODE.has(errorCode))
      return `error_code ${json(errorCode)} is not in ERRORS`;
    if (STATUS_OF_CODE.get(errorCode) !== reply.status)
      return `status ${reply.status} does not belong to error_code ${errorCode}`;
    if (envelope.data !== null) return 'data is not null';
    if (typeof envelope.message !== 'string') return 'message is not a string';
  }
  if (fuzzCase.expect && !fuzzCase.expect.includes(envelope.code as number)) {
    return `expected code ${fuzzCase.expect.join(' or ')}`;
  }
  return undefined;
}

function preview(data: string | Buffer): string {
  const shown = 160;
  if (typeof data === 'string')
    return data.length <= shown ? json(data) : `${json(data.slice(0, shown))}… (${data.length} chars)`;
  const bytes = data.subarray(0, shown / 2).toString('hex');
  return data.length <= shown / 2 ? `hex ${bytes}` : `hex ${bytes}… (${data.length} bytes)`;
}

function describeCase(fuzzCase: FuzzCase): string {
  const body = fuzzCase.body === undefined ? '' : ` body ${preview(fuzzCase.body)}`;
  return `[${fuzzCase.label}] target ${preview(fuzzCase.target)}${body}`;
}

/** Runs `work` on every item, `limit` at a time, in the order the iterator gives them. */
async function inParallel<T>(items: Iterator<T>, limit: number, work: (item: T) => Promise<void>): Promise<void> {
  const worker = async () => {
    for (let next = items.next(); !next.done; next = items.next()) await work(next.value);
  };
  await Promise.all(Array.from({ length: limit }, worker));
}

/** A seed per operation, from its id: adding an operation leaves the others' inputs as they were. */
function routeSeed(operationId: string): number {
  let hash = 0x811c9dc5;
  for (const char of operationId) hash = Math.imul(hash ^ char.charCodeAt(0), 0x01000193) >>> 0;
  return (SEED ^ hash) >>> 0;
}

/** The k-th of n runs of the operations, as even as whole operations make them. */
function shardOf<T>(all: T[], k: number, n: number): T[] {
  return all.slice(Math.round(((k - 1) * all.length) / n), Math.round((k * all.length) / n));
}

function casesFor(fixture: RouteFixture): number {
  return CASES ?? Math.round(DEFAULT_CASES * (fixture.fuzzShare ?? 1));
}

// ---------------------------------------------------------------------------------------------------------

const receiver = await TestReceiver.start();
const server = await startTestServer();
const allOperations = await signedOperations(server.url);
const only = process.env.FUZZ_ONLY?.split(',')
  .map((id) => id.trim())
  .filter(Boolean);
const unknown = (only ?? []).filter((id) => !allOperations.some((operation) => operation.operationId === id));
assert.deepEqual(unknown, [], 'FUZZ_ONLY names operations the document does not have');
const chosen = only ? allOperations.filter((operation) => only.includes(operation.operationId)) : allOperations;
const operations = shardOf(chosen, Number(SHARD![1]), Number(SHARD![2]));

describe(`fuzzing every operation of the OpenAPI document with hostile input (FUZZ_SEED=${SEED})`, () => {
  let world: MerchantWorld;
  let other: MerchantWorld;
  let isolated: MerchantWorld | undefined;
  /** The isolated world was emptied or replaced by the operation fuzzed last (a reset, a restore): make another. */
  let isolatedSpent = false;
  const fuzzed = new Set<string>();

  before(async () => {
    world = await MerchantWorld.build(
      server,
      await server.newMerchant({ name: 'Fuzzed Merchant' }),
      `${receiver.url}/fuzzed`,
    );
    other = await MerchantWorld.build(
      server,
      await server.newMerchant({ name: 'Other Merchant' }),
      `${receiver.url}/other`,
    );
  });
  after(async () => {
    // A failing close (a route that broke its contract) must not leave the receiver holding the process open.
    try {
      await server.close();
    } finally {
      await receiver.close();
    }
  });

  const send = (on: MerchantWorld, method: string, fuzzCase: FuzzCase): Promise<RawReply> => {
    const { body, headers = {} } = fuzzCase;
    // Node's client writes a GET or DELETE body only with its length given (POST and PUT go chunked without).
    const length: Record<string, string> =
      body !== undefined && (method === 'GET' || method === 'DELETE') && !headers['transfer-encoding']
        ? { 'content-length': String(Buffer.byteLength(body)) }
        : {};
    return signedRaw(server.url, on.merchant, {
      method,
      target: fuzzCase.target,
      headers: { ...length, ...headers },
      ...(body !== undefined && { body }),
    });
  };

  /** The operation's valid requests, its naming places, and its seed request sent: it must succeed. */
  async function prepare(operation: Operation, fixture: RouteFixture, cases: number): Promise<Route> {
    if (fixture.isolated && (isolated === undefined || isolatedSpent)) {
      isolated = await MerchantWorld.build(
        server,
        await server.newMerchant({ name: 'Clock Merchant' }),
        `${receiver.url}/isolated`,
      );
      isolatedSpent = false;
    }
    if (fixture.replacesWorld) isolatedSpent = true;
    const on = fixture.isolated ? isolated! : world;
    const seedRequest = await fixture.valid(on);
    const seedRoute: Route = {
      operation,
      fixture,
      world: on,
      templates: [seedRequest],
      lookups: [],
      naturalKeys: [],
      sites: [],
    };
    const seed = requestCase(seedRoute, 'valid seed', seedRequest, undefined);
    const reply = await send(on, operation.method, seed);
    assert.ok(
      reply.status >= 200 && reply.status < 300,
      `${operation.operationId}: its fixture's valid request must succeed; got ${reply.status} ${reply.text.slice(0, 300)} for ${describeCase(seed)}`,
    );

    // The seed used its objects up unless repeatable: a few fresh requests, for the cases to share.
    const templates = fixture.repeatable ? [seedRequest] : [];
    const wanted = fixture.repeatable ? 1 : Math.min(20, Math.max(2, Math.ceil(cases / 50)));
    while (templates.length < wanted) templates.push(await fixture.valid(on));

    const route: Route = { ...seedRoute, templates, sites: schemaSites(operation) };
    for (const [location, naming] of Object.entries(fixture.names ?? {})) {
      if (naming.kind === 'natural-key') route.naturalKeys.push({ location, naming });
      if (naming.kind !== 'lookup') continue;
      const own = naming.request
        ? [await naming.request(on)]
        : templates.filter((request) => valueAt(request, location) !== undefined);
      if (naming.request) templates.push(own[0]!);
      const foreign = valueAt(await (naming.request ?? fixture.valid)(other), location);
      route.lookups.push({
        location,
        naming,
        templates: own,
        own: String(valueAt(own[0]!, location)),
        foreign: String(foreign),
      });
    }
    return route;
  }

  test('every operation of the document has a fixture', () => {
    assert.deepEqual(operationsWithoutFixture(allOperations), []);
  });

  for (const operation of operations) {
    test(`${operation.operationId} (${operation.method} ${operation.path}): succeeds when valid; no 5xx and always the envelope`, async (t) => {
      const fixture = fixtureOf(operation);
      const planned = casesFor(fixture);
      const route = await prepare(operation, fixture, planned);
      const seed = routeSeed(operation.operationId);
      const cases = routeCases(new Rng(seed), route, planned);
      let sent = 0;
      let certain = 0;
      const statuses = new Map<number, number>();
      const problems: string[] = [];
      await inParallel(cases, CONCURRENCY, async (fuzzCase) => {
        const index = sent;
        sent += 1;
        if (fuzzCase.expect) certain += 1;
        try {
          const reply = await send(route.world, operation.method, fuzzCase);
          statuses.set(reply.status, (statuses.get(reply.status) ?? 0) + 1);
          const problem = replyProblem(reply, fuzzCase, operation.fileType);
          if (problem)
            problems.push(
              `#${index} ${describeCase(fuzzCase)}: ${problem}; got ${reply.status} ${preview(reply.text)}`,
            );
        } catch (error) {
          problems.push(`#${index} ${describeCase(fuzzCase)}: request failed: ${String(error)}`);
        }
      });
      t.diagnostic(
        `${sent} requests (${certain} with a certain answer); statuses ${json(Object.fromEntries([...statuses].sort(([a], [b]) => a - b)))}`,
      );
      assert.ok(sent >= planned, `FUZZ_SEED=${SEED}: only ${sent} of ${planned} requests to ${operation.operationId}`);
      assert.equal(
        problems.length,
        0,
        `FUZZ_SEED=${SEED} (operation seed ${seed}): ${problems.length} of ${sent} replies from ${operation.operationId} were wrong:\n` +
          problems.slice(0, 25).join('\n'),
      );
      assert.equal(POLLUTION_KEY in {}, false, `FUZZ_SEED=${SEED}: ${operation.operationId} polluted Object.prototype`);
      fuzzed.add(operation.operationId);
    });
  }

  test('every operation of the document was fuzzed', () => {
    assert.deepEqual(
      operations.map((operation) => operation.operationId).filter((id) => !fuzzed.has(id)),
      [],
    );
  });

  test('the server is healthy afterwards and nothing reached Object.prototype', async () => {
    const echo = await world.send('POST', '/svc/payment/api/v1/openapi/echo', { message: 'still here' });
    assert.equal(echo.status, 200, echo.text);
    assert.equal(echo.json.data.message, 'still here');
    const customer = await world.send('GET', `/svc/payment/api/v1/openapi/customers/${world.customer.uuid}`);
    assert.equal(customer.status, 200, customer.text);
    assert.equal(customer.json.data.customer.reference_number, world.customer.reference);
    assert.equal(POLLUTION_KEY in {}, false, `FUZZ_SEED=${SEED}: Object.prototype was polluted`);
  });
});
