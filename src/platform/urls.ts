import { BlockList, isIP } from 'node:net';
import type { Mode } from './config.js';
import { AppError } from './errors.js';

/** Addresses a live platform must never be pointed at: loopback, private, link-local, carrier-grade NAT. */
const INTERNAL = new BlockList();
for (const [address, prefix] of [['0.0.0.0', 8], ['10.0.0.0', 8], ['100.64.0.0', 10], ['127.0.0.0', 8], ['169.254.0.0', 16], ['172.16.0.0', 12], ['192.168.0.0', 16]] as const) {
  INTERNAL.addSubnet(address, prefix, 'ipv4');
}
for (const [address, prefix] of [['::', 128], ['::1', 128], ['fc00::', 7], ['fe80::', 10], ['::ffff:0:0', 96]] as const) {
  INTERNAL.addSubnet(address, prefix, 'ipv6');
}

export function isInternalAddress(address: string): boolean {
  const version = isIP(address);
  return version !== 0 && INTERNAL.check(address, version === 4 ? 'ipv4' : 'ipv6');
}

/**
 * A URL a merchant gives us to call or send payers to: http or https, no credentials in it. In live mode a
 * literal internal address is refused here; a host name is checked again when it is resolved, at delivery.
 * Sandbox mode allows internal addresses, so that tests can run receivers on 127.0.0.1.
 */
export function checkMerchantUrl(text: string, field: string, mode: Mode): string {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new AppError('validationFailed', `${field} must be an http or https URL.`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new AppError('validationFailed', `${field} must be an http or https URL.`);
  if (url.username || url.password) throw new AppError('validationFailed', `${field} must not carry credentials.`);
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  if (mode === 'live' && (isInternalAddress(host) || host === 'localhost')) {
    throw new AppError('validationFailed', `${field} must not point at an internal address.`);
  }
  return text;
}
