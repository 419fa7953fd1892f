import type { AnyRoute } from '../http/route.js';
import { LAB_ERRORS } from './errors.js';
import { requireSandbox } from './sandbox-only.js';

/** Where the lab's routes live: beside the sandbox's clock. */
export const LAB_BASE = '/svc/sandbox/api/v1';

export const LAB_TAGS = ['lab'];

/**
 * A lab route: present in both modes (a live platform answers it with 403 `900101`, rather than looking as if the
 * route did not exist), refused before its handler runs.
 */
export function labRoute<R extends AnyRoute>(route: R): R {
  return {
    ...route,
    errors: [LAB_ERRORS.liveMode, ...route.errors],
    handler: async (input) => {
      requireSandbox(input.ctx.config);
      return route.handler(input);
    },
  };
}
