import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import type { LookupFunction } from 'node:net';
import type { Mode } from './config.js';
import { isForbiddenAddress } from './urls.js';

/** The error code of a connection refused because its host resolved to an address the mode forbids. */
export const FORBIDDEN_ADDRESS_CODE = 'EFORBIDDENADDRESS';

/**
 * DNS lookup for every request paygate makes on a merchant's behalf (webhooks, batch files): it refuses the
 * addresses the mode forbids (urls.ts), checked on what the name resolved to, so that a public name pointed at one
 * cannot reach it. A literal address is never looked up: callers check it with `isForbiddenHost` first.
 */
export function guardedLookup(mode: Mode): LookupFunction {
  return (hostname, options, callback) => {
    dnsLookup(hostname, { ...options, all: true }, (error, addresses) => {
      if (error) {
        callback(error, '', 0);
        return;
      }
      const list = addresses as unknown as LookupAddress[];
      if (list.length === 0 || list.some((a) => isForbiddenAddress(a.address, mode))) {
        const refused: NodeJS.ErrnoException = new Error(
          'refused: the host resolves to an address paygate may not call',
        );
        refused.code = FORBIDDEN_ADDRESS_CODE;
        callback(refused, '', 0);
        return;
      }
      if ((options as { all?: boolean }).all)
        (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, list);
      else callback(null, list[0]!.address, list[0]!.family);
    });
  };
}
