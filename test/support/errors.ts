import { ERRORS } from '../../src/modules.js';
import type { ErrorDefinition } from '../../src/platform/errors.js';

/** An error of the closed list by its name (`orderNotFound`), as tests name the answer they expect. */
export type ErrorName = string;

export function errorNamed(name: ErrorName): ErrorDefinition {
  const definition = ERRORS[name];
  if (!definition) throw new Error(`no error is named ${name} in the closed list`);
  return definition;
}
