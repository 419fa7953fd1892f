import Type, { type Static, type TSchema, type TUnsafe } from 'typebox';

/**
 * A value or null, written as `type: [T, "null"]` rather than `anyOf`: validation then reports the field's own
 * rule (length, enum) instead of "must match a schema in anyOf", and OpenAPI 3.1 reads it the same way.
 */
export function Nullable<T extends TSchema>(schema: T): TUnsafe<Static<T> | null> {
  const { type, ...rest } = schema as unknown as { type: string } & Record<string, unknown>;
  const enumValues = rest.enum as unknown[] | undefined;
  return Type.Unsafe<Static<T> | null>({
    ...rest,
    type: [type, 'null'],
    ...(enumValues ? { enum: [...enumValues, null] } : {}),
  });
}

/** A closed list of text values, as a plain `{type: string, enum}` that {@link Nullable} can extend. */
export function StringEnum<const T extends readonly string[]>(
  values: T,
  options: { description?: string } = {},
): TUnsafe<T[number]> {
  return Type.Unsafe<T[number]>({ type: 'string', enum: [...values], ...options });
}

/**
 * An amount as clients send it: decimal text ("12.50") or a JSON number (12.5). Parsed into minor units by the
 * domain, which knows the currency's decimals.
 */
export function AmountInput(options: { description?: string } = {}): TUnsafe<string | number> {
  return Type.Unsafe<string | number>({ type: ['string', 'number'], maxLength: 32, ...options });
}

/** A whole number sent as text or as a JSON number (card expiry months and years arrive both ways). */
export function DigitsInput(maxLength: number): TUnsafe<string | number> {
  return Type.Unsafe<string | number>({ type: ['string', 'integer'], maxLength });
}

/** The paging of every list: `offset` from 0, `limit` 1 to 1000, 20 when absent. Spread into a list's query. */
export const PAGING = {
  offset: Type.Integer({ minimum: 0, maximum: 1_000_000_000, default: 0 }),
  limit: Type.Integer({ minimum: 1, maximum: 1000, default: 20 }),
};

/** The query of a list that takes nothing but its page. */
export const PageQuery = Type.Object(PAGING);
