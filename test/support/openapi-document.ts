import assert from 'node:assert/strict';
import type { Schema as JsonSchema } from '../../src/web/docs-page.js';
import { rawRequest } from './server.js';

/**
 * The signed operations as the running server documents them at GET /openapi.json: the tests that must cover
 * every route find the routes here, never in a list kept by hand.
 */

/** The part of JSON Schema the served document uses: the same description the API reference page reads it by. */
export type { Schema as JsonSchema } from '../../src/web/docs-page.js';

export interface Parameter {
  name: string;
  in: 'path' | 'query';
  required: boolean;
  schema: JsonSchema;
}

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'DELETE';

export interface Operation {
  operationId: string;
  method: HttpMethod;
  /** The path template, with `{name}` for each path parameter. */
  path: string;
  pathParameters: Parameter[];
  queryParameters: Parameter[];
  /** The JSON body's schema, when the operation takes one. */
  body?: JsonSchema;
  bodyRequired: boolean;
  /** The media type of a success that is a file, not the envelope (a batch's result.csv). */
  fileType?: string;
}

interface DocumentOperation {
  operationId?: string;
  parameters?: Array<{ name: string; in: string; required?: boolean; schema?: JsonSchema }>;
  requestBody?: { required?: boolean; content?: Record<string, { schema?: JsonSchema }> };
  responses?: Record<string, { content?: Record<string, unknown> }>;
}

interface Document {
  paths: Record<string, Record<string, DocumentOperation>>;
  components?: { schemas?: Record<string, JsonSchema> };
}

/** Every operation under /svc/ (the signed API, sandbox routes and aliases included), as served. */
export async function signedOperations(baseUrl: string): Promise<Operation[]> {
  const reply = await rawRequest(baseUrl, { method: 'GET', target: '/openapi.json' });
  assert.equal(reply.status, 200, `GET /openapi.json: ${reply.text.slice(0, 200)}`);
  const document = reply.json as Document;
  const resolve = refResolver(document);
  const operations: Operation[] = [];
  for (const [path, methods] of Object.entries(document.paths)) {
    if (!path.startsWith('/svc/')) continue;
    for (const [method, operation] of Object.entries(methods)) {
      assert.ok(operation.operationId, `${method.toUpperCase()} ${path} has an operationId`);
      const parameters = (operation.parameters ?? []).map((p) => ({
        name: p.name,
        in: p.in as Parameter['in'],
        required: p.required === true,
        schema: resolve(p.schema ?? {}),
      }));
      const bodySchema = operation.requestBody?.content?.['application/json']?.schema;
      const fileType = Object.keys(operation.responses?.['200']?.content ?? {}).find(
        (type) => type !== 'application/json',
      );
      operations.push({
        operationId: operation.operationId,
        method: method.toUpperCase() as HttpMethod,
        path,
        pathParameters: parameters.filter((p) => p.in === 'path'),
        queryParameters: parameters.filter((p) => p.in === 'query'),
        ...(bodySchema && { body: resolve(bodySchema) }),
        bodyRequired: operation.requestBody?.required === true,
        ...(fileType && { fileType }),
      });
    }
  }
  assert.ok(operations.length > 0, 'the document has operations under /svc/');
  return operations;
}

/** Inlines local `$ref`s, so the walkers below see plain schemas. */
function refResolver(document: Document): (schema: JsonSchema) => JsonSchema {
  const resolve = (schema: JsonSchema, seen: ReadonlySet<string>): JsonSchema => {
    if (schema.$ref) {
      const name = schema.$ref.replace('#/components/schemas/', '');
      assert.ok(!seen.has(name), `the schema ${name} refers to itself`);
      const target = document.components?.schemas?.[name];
      assert.ok(target, `the document defines ${schema.$ref}`);
      return resolve(target, new Set([...seen, name]));
    }
    const copy: JsonSchema = { ...schema };
    if (schema.properties) {
      copy.properties = Object.fromEntries(
        Object.entries(schema.properties).map(([key, value]) => [key, resolve(value, seen)]),
      );
    }
    if (schema.items) copy.items = resolve(schema.items, seen);
    if (schema.anyOf) copy.anyOf = schema.anyOf.map((branch) => resolve(branch, seen));
    if (schema.oneOf) copy.oneOf = schema.oneOf.map((branch) => resolve(branch, seen));
    if (typeof schema.additionalProperties === 'object')
      copy.additionalProperties = resolve(schema.additionalProperties, seen);
    return copy;
  };
  return (schema) => resolve(schema, new Set());
}

// ---------------------------------------------------------------------------------------------------------
// Locations: where in a request a value sits, written `path.uuid`, `query.limit`, `body.order.number`, with
// `[]` for the items of an array (`body.order.line_items[].price`).

export type Location = string;

/** One place of the request the schema describes, with the schema of the value there. */
export interface SchemaSite {
  location: Location;
  schema: JsonSchema;
  /** The value must be present whenever its parent is. */
  required: boolean;
}

/** Every place the operation's parameters and body schema describe, parents before their children. */
export function schemaSites(operation: Operation): SchemaSite[] {
  const sites: SchemaSite[] = [];
  for (const parameter of [...operation.pathParameters, ...operation.queryParameters]) {
    sites.push({
      location: `${parameter.in}.${parameter.name}`,
      schema: parameter.schema,
      required: parameter.required,
    });
  }
  if (operation.body) walkSchema(operation.body, 'body', operation.bodyRequired, sites);
  return sites;
}

function walkSchema(schema: JsonSchema, location: Location, required: boolean, sites: SchemaSite[]): void {
  sites.push({ location, schema, required });
  for (const branch of [schema, ...(schema.anyOf ?? []), ...(schema.oneOf ?? [])]) {
    for (const [key, child] of Object.entries(branch.properties ?? {})) {
      walkSchema(child, `${location}.${key}`, branch.required?.includes(key) ?? false, sites);
    }
    if (branch.items) walkSchema(branch.items, `${location}[]`, false, sites);
  }
}

/** The JSON types a schema admits (a union's, for anyOf). */
export function typesOf(schema: JsonSchema): Set<string> {
  if (schema.anyOf ?? schema.oneOf)
    return new Set((schema.anyOf ?? schema.oneOf)!.flatMap((branch) => [...typesOf(branch)]));
  if (schema.type === undefined) return new Set(['string', 'number', 'integer', 'boolean', 'object', 'array', 'null']);
  return new Set(Array.isArray(schema.type) ? schema.type : [schema.type]);
}

/**
 * A property name that, by the interface's naming, names an object (an id, a number, a reference, a uuid, a
 * token, a link). Whether it does is then the fixture's to say: a card number is not an object of ours.
 */
const NAMING_KEY = /(?:^|_)(?:id|number|reference|uuid|token|link)$/;

/**
 * The places of the request that may name an object: every path parameter, and every query parameter or body
 * field whose name says so and that holds text.
 */
export function namingLocations(operation: Operation): Location[] {
  return schemaSites(operation)
    .filter(({ location, schema }) => {
      if (location.startsWith('path.')) return true;
      const key = location.slice(location.lastIndexOf('.') + 1);
      return NAMING_KEY.test(key) && typesOf(schema).has('string');
    })
    .map(({ location }) => location);
}

// ---------------------------------------------------------------------------------------------------------
// Requests

/** A request to an operation, before it is written out: values as the client means them, not yet encoded. */
export interface OperationRequest {
  path: Record<string, string>;
  /** A list sends the parameter once per item. */
  query: Record<string, string | string[]>;
  /** The JSON body; undefined sends none. */
  body?: unknown;
}

interface ParsedLocation {
  part: 'path' | 'query' | 'body';
  /** Property names, or `[]` for every item of an array. */
  steps: string[];
}

function parseLocation(location: Location): ParsedLocation {
  const dot = location.indexOf('.');
  const part = dot < 0 ? location : location.slice(0, dot);
  assert.ok(
    part === 'path' || part === 'query' || part === 'body',
    `a location starts with path, query or body: ${location}`,
  );
  const rest = dot < 0 ? '' : location.slice(dot + 1);
  // A parameter's name is taken whole: query names such as filter[customer.uuid][_eq] hold dots and brackets.
  if (part !== 'body') return { part, steps: [rest] };
  return { part, steps: rest === '' ? [] : rest.replace(/\[\]/g, '.[]').split('.') };
}

/** The value at a location (for `[]`, the first item's), or undefined when the request has none there. */
export function valueAt(request: OperationRequest, location: Location): unknown {
  const { part, steps } = parseLocation(location);
  if (part !== 'body') return request[part][steps[0]!];
  let value: unknown = request.body;
  for (const step of steps) {
    if (step === '[]') value = Array.isArray(value) ? value[0] : undefined;
    else value = isRecord(value) ? value[step] : undefined;
    if (value === undefined) return undefined;
  }
  return value;
}

/**
 * A copy of the request with `value` at the location (for `[]`, in every item), making the objects and arrays
 * on the way; `undefined` removes the value.
 */
export function withValueAt(request: OperationRequest, location: Location, value: unknown): OperationRequest {
  const { part, steps } = parseLocation(location);
  if (part !== 'body') {
    const values: Record<string, string | string[]> = { ...request[part] };
    if (value === undefined) delete values[steps[0]!];
    else values[steps[0]!] = part === 'query' && Array.isArray(value) ? value.map(String) : String(value);
    return { ...request, [part]: values };
  }
  return { ...request, body: setIn(request.body, steps, value) };
}

function setIn(container: unknown, steps: readonly string[], value: unknown): unknown {
  if (steps.length === 0) return value;
  const [step, ...rest] = steps as [string, ...string[]];
  if (step === '[]') {
    const items = Array.isArray(container) && container.length > 0 ? container : [undefined];
    return items.map((item) => setIn(item, rest, value));
  }
  const object: Record<string, unknown> = isRecord(container) ? { ...container } : {};
  const next = setIn(object[step], rest, value);
  if (next === undefined) delete object[step];
  else object[step] = next;
  return object;
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The request target: the path with its parameters percent-encoded, then the query string. */
export function targetOf(operation: Operation, request: OperationRequest): string {
  const path = operation.path.replace(/\{(\w+)\}/g, (_, name: string) => {
    const value = request.path[name];
    assert.ok(value !== undefined, `${operation.operationId}: the request gives the path parameter ${name}`);
    return encodeURIComponent(wellFormed(value));
  });
  const query = new URLSearchParams();
  for (const [name, value] of Object.entries(request.query)) {
    for (const item of Array.isArray(value) ? value : [value]) query.append(name, item);
  }
  const text = query.toString();
  return text ? `${path}?${text}` : path;
}

/** The text with any lone surrogate replaced (U+FFFD), as it goes on the wire in UTF-8. */
export function wellFormed(value: string): string {
  return Buffer.from(value, 'utf8').toString('utf8');
}

export function bodyOf(request: OperationRequest): string | undefined {
  return request.body === undefined ? undefined : JSON.stringify(request.body);
}
