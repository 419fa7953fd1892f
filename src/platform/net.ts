import { BlockList, isIP } from 'node:net';

export type IpFamily = 'ipv4' | 'ipv6';

export interface Cidr {
  address: string;
  prefix: number;
  family: IpFamily;
  /** Canonical text, as stored and shown. */
  text: string;
}

export interface IpAddress {
  address: string;
  family: IpFamily;
}

const MAPPED_V4 = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i;

/** `::ffff:127.0.0.1` is `127.0.0.1`: an allow list entry must match either spelling. */
export function normalizeIp(text: string): IpAddress | undefined {
  const mapped = MAPPED_V4.exec(text);
  const candidate = mapped ? mapped[1]! : text;
  const version = isIP(candidate);
  if (version === 4) return { address: candidate, family: 'ipv4' };
  if (version === 6) return { address: candidate.toLowerCase(), family: 'ipv6' };
  return undefined;
}

/** An address (`10.0.0.1`) or a range (`10.0.0.0/8`, `2001:db8::/32`). */
export function parseCidr(text: string): Cidr | undefined {
  const [addressPart, prefixPart, extra] = text.trim().split('/');
  if (addressPart === undefined || extra !== undefined) return undefined;
  const ip = normalizeIp(addressPart);
  if (!ip) return undefined;
  const max = ip.family === 'ipv4' ? 32 : 128;
  if (prefixPart !== undefined && !/^\d{1,3}$/.test(prefixPart)) return undefined;
  const prefix = prefixPart === undefined ? max : Number(prefixPart);
  if (prefix > max) return undefined;
  return { address: ip.address, prefix, family: ip.family, text: `${ip.address}/${prefix}` };
}

export function blockListOf(cidrs: readonly Cidr[]): BlockList {
  const list = new BlockList();
  for (const cidr of cidrs) list.addSubnet(cidr.address, cidr.prefix, cidr.family);
  return list;
}

export function isInRanges(address: string, ranges: BlockList): boolean {
  const ip = normalizeIp(address);
  return ip !== undefined && ranges.check(ip.address, ip.family);
}

/**
 * Who a caller is, for counting requests: an IPv4 address, or an IPv6 address's /64 (one household or phone is
 * given a whole /64, so counting single IPv6 addresses would let it take a new one for every request).
 */
export function callerKey(address: string): string {
  const ip = normalizeIp(address);
  if (!ip) return address;
  if (ip.family === 'ipv4') return ip.address;
  return `${expandIpv6(ip.address).slice(0, 4).join(':')}::/64`;
}

function expandIpv6(address: string): string[] {
  const [head, tail] = address.split('::') as [string, string | undefined];
  const left = head === '' ? [] : head.split(':');
  const right = tail === undefined || tail === '' ? [] : tail.split(':');
  // An embedded IPv4 tail (::ffff:1.2.3.4 is handled by normalizeIp; others such as 64:ff9b::1.2.3.4) is two groups.
  const last = right.length > 0 ? right : left;
  if (last.length > 0 && last[last.length - 1]!.includes('.')) {
    const [a, b, c, d] = last.pop()!.split('.').map(Number) as [number, number, number, number];
    last.push(((a << 8) | b).toString(16), ((c << 8) | d).toString(16));
  }
  const missing = tail === undefined ? 0 : 8 - left.length - right.length;
  return [...left, ...Array.from({ length: missing }, () => '0'), ...right].map((group) =>
    group.toLowerCase().padStart(4, '0'),
  );
}
