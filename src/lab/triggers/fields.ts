import { AppError } from '../../platform/errors.js';
import { LAB_ERRORS } from '../errors.js';
import type { FieldType, Trigger } from './trigger.js';

/** `set` as sent: field names to values (text from the command line; JSON values through the API). */
export type SetValue = string | number | boolean | null;
export type SetInput = Record<string, SetValue>;

/**
 * Reads `set` for a trigger: every field must be one the trigger takes (else 900402, naming the field and listing
 * those that apply). Values keep their JSON type, except text given for a number or a yes/no field (the command
 * line sends only text), which is read as the API's type; what the value is worth is for the API's own rules.
 */
export function readSet(trigger: Trigger, set: SetInput): Map<string, unknown> {
  const values = new Map<string, unknown>();
  for (const [name, value] of Object.entries(set)) {
    const spec = trigger.fields.find((candidate) => candidate.name === name);
    if (!spec) throw notApplying(trigger, name);
    values.set(name, typed(spec.type, value));
  }
  return values;
}

function typed(type: FieldType, value: SetValue): unknown {
  if (typeof value !== 'string') return value;
  if (type === 'integer' && /^-?\d{1,15}$/.test(value)) return Number(value);
  if (type === 'boolean' && (value === 'true' || value === 'false')) return value === 'true';
  return value;
}

function notApplying(trigger: Trigger, name: string): AppError {
  const takes = trigger.fields.map((f) => f.name);
  const why = name.startsWith('metadata.') ? " (paygate's objects carry no metadata)" : '';
  return new AppError(
    LAB_ERRORS.triggerFieldInvalid,
    `set.${name} does not apply to ${trigger.kind}${why}; it takes ${takes.length === 0 ? 'no field' : takes.join(', ')}.`,
  );
}
