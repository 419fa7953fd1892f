import { BlockList, isIP } from 'node:net';
import type { Mode } from './config.js';
import { invalid } from './errors.js';

/**
 * Where paygate may send a request on a merchant's behalf (a webhook, later a batch's file_url or a payout's
 * callback_url). Never to link-local addresses, the cloud's metadata services among them, nor to addresses that
 * name no host; in live mode, never to this machine or a private network either. Sandbox mode may call loopback
 * and private addresses, so that merchants' tests can run their receivers on 127.0.0.1.
 */
const NEVER = ranges(
  'ipv4',
  [
    ['0.0.0.0', 8],
    ['169.254.0.0', 16],
    ['224.0.0.0', 4],
    ['240.0.0.0', 4],
    // Cloud metadata services outside the link-local range: Alibaba Cloud's.
    ['100.100.100.200', 32],
  ],
  ranges('ipv6', [
    ['::', 128],
    ['fe80::', 10],
    ['ff00::', 8],
    // AWS's metadata service over IPv6.
    ['fd00:ec2::254', 128],
  ]),
);

const INTERNAL = ranges(
  'ipv4',
  [
    ['10.0.0.0', 8],
    ['100.64.0.0', 10],
    ['127.0.0.0', 8],
    ['172.16.0.0', 12],
    ['192.0.0.0', 24],
    ['192.168.0.0', 16],
    ['198.18.0.0', 15],
  ],
  ranges('ipv6', [
    // The translation ranges (compatible, NAT64, 6to4) could embed any IPv4 address.
    ['::', 96],
    ['::1', 128],
    ['fc00::', 7],
    ['64:ff9b::', 96],
    ['2002::', 16],
  ]),
);

function ranges(family: 'ipv4' | 'ipv6', subnets: Array<[string, number]>, into = new BlockList()): BlockList {
  for (const [address, prefix] of subnets) into.addSubnet(address, prefix, family);
  return into;
}

/** Whether paygate may connect to this IP address in this mode. */
export function isForbiddenAddress(address: string, mode: Mode): boolean {
  const embedded = embeddedIpv4(address);
  if (embedded !== undefined) return isForbiddenAddress(embedded, mode);
  const family = isIP(address) === 4 ? 'ipv4' : isIP(address) === 6 ? 'ipv6' : undefined;
  if (!family) return false;
  return NEVER.check(address, family) || (mode === 'live' && INTERNAL.check(address, family));
}

/**
 * A URL's host (an address, bracketed IPv6, or a name) that paygate may not call in this mode. A name is checked
 * again once resolved, at connection time (a public name may point inside).
 */
export function isForbiddenHost(hostname: string, mode: Mode): boolean {
  const host = hostname
    .replace(/^\[(.*)\]$/, '$1')
    .replace(/\.+$/, '')
    .toLowerCase();
  if (isIP(host)) return isForbiddenAddress(host, mode);
  return mode === 'live' && (host === 'localhost' || host.endsWith('.localhost'));
}

/** The IPv4 address an IPv6 address carries in its last 32 bits, for the forms that stand for IPv4 hosts. */
function embeddedIpv4(address: string): string | undefined {
  if (isIP(address) !== 6) return undefined;
  const groups = expandIpv6(address);
  if (!groups) return undefined;
  const prefix = groups
    .slice(0, 6)
    .map((group) => group.toString(16))
    .join(':');
  // IPv4-mapped (::ffff:a.b.c.d) and IPv4-translated (::ffff:0:a.b.c.d): checked by the IPv4 address they carry.
  if (prefix !== '0:0:0:0:0:ffff' && prefix !== '0:0:0:0:ffff:0') return undefined;
  const [high, low] = [groups[6]!, groups[7]!];
  return [high >> 8, high & 0xff, low >> 8, low & 0xff].join('.');
}

/** The eight 16-bit groups of an IPv6 address, a dotted IPv4 tail read as two. */
function expandIpv6(address: string): number[] | undefined {
  let text = address.toLowerCase();
  const dotted = /(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(text);
  if (dotted) {
    const [a, b, c, d] = dotted.slice(1).map(Number) as [number, number, number, number];
    text = `${text.slice(0, dotted.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head = '', tail] = text.split('::');
  const left = head === '' ? [] : head.split(':');
  const right = tail === undefined || tail === '' ? [] : tail.split(':');
  const missing = 8 - left.length - right.length;
  if (tail === undefined ? missing !== 0 : missing < 0) return undefined;
  return [...left, ...Array<string>(tail === undefined ? 0 : missing).fill('0'), ...right].map((group) =>
    parseInt(group, 16),
  );
}

/**
 * A URL a merchant gives us to call or send payers to: http or https, no credentials in it, and a host paygate
 * may call in this mode (a name is checked again when it is resolved, at delivery).
 */
export function checkMerchantUrl(text: string, field: string, mode: Mode): string {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw invalid(field, 'must be an http or https URL');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw invalid(field, 'must be an http or https URL');
  if (url.username || url.password) throw invalid(field, 'must not carry credentials');
  if (isForbiddenHost(url.hostname, mode)) {
    throw invalid(field, `must not point at ${mode === 'live' ? 'an internal' : 'a link-local or metadata'} address`);
  }
  return text;
}
