import { BlockList, isIP } from 'node:net';
import type { Mode } from './config.js';
import { AppError, PLATFORM_ERRORS } from './errors.js';

/** Addresses a live platform must never be pointed at: loopback, private, link-local, carrier-grade NAT. */
const INTERNAL = new BlockList();
for (const [address, prefix] of [
  ['0.0.0.0', 8], ['10.0.0.0', 8], ['100.64.0.0', 10], ['127.0.0.0', 8], ['169.254.0.0', 16], ['172.16.0.0', 12],
  ['192.0.0.0', 24], ['192.168.0.0', 16], ['198.18.0.0', 15], ['224.0.0.0', 4], ['240.0.0.0', 4],
] as const) {
  INTERNAL.addSubnet(address, prefix, 'ipv4');
}
// IPv6, with the translation ranges (NAT64, 6to4) whose embedded IPv4 address could be anything. IPv4-mapped
// addresses are checked by the IPv4 address they map: a BlockList rule on ::ffff:0:0/96 would match every IPv4.
for (const [address, prefix] of [
  ['::', 96], ['::1', 128], ['fc00::', 7], ['fe80::', 10], ['ff00::', 8], ['64:ff9b::', 96], ['2002::', 16],
] as const) {
  INTERNAL.addSubnet(address, prefix, 'ipv6');
}

export function isInternalAddress(address: string): boolean {
  const version = isIP(address);
  if (version === 4) return INTERNAL.check(address, 'ipv4');
  if (version !== 6) return false;
  const mapped = mappedIpv4(address);
  return mapped !== undefined ? INTERNAL.check(mapped, 'ipv4') : INTERNAL.check(address, 'ipv6');
}

/** The IPv4 address an IPv4-mapped IPv6 address (`::ffff:127.0.0.1`, `::ffff:7f00:1`) stands for. */
function mappedIpv4(address: string): string | undefined {
  const dotted = /^(?:0{0,4}:){0,5}:?ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i.exec(address);
  if (dotted) return dotted[1];
  const hex = /^(?:0{0,4}:){0,5}:?ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/i.exec(address);
  if (!hex) return undefined;
  const high = parseInt(hex[1]!, 16);
  const low = parseInt(hex[2]!, 16);
  return [high >> 8, high & 0xff, low >> 8, low & 0xff].join('.');
}

/** A URL's host (an address, bracketed IPv6, or a name) that names this machine or a private network. */
export function isInternalHost(hostname: string): boolean {
  const host = hostname.replace(/^\[(.*)\]$/, '$1');
  return isInternalAddress(host) || host === 'localhost' || host.endsWith('.localhost');
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
    throw new AppError(PLATFORM_ERRORS.validationFailed, `${field} must be an http or https URL.`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new AppError(PLATFORM_ERRORS.validationFailed, `${field} must be an http or https URL.`);
  if (url.username || url.password) throw new AppError(PLATFORM_ERRORS.validationFailed, `${field} must not carry credentials.`);
  if (mode === 'live' && isInternalHost(url.hostname)) {
    throw new AppError(PLATFORM_ERRORS.validationFailed, `${field} must not point at an internal address.`);
  }
  return text;
}
