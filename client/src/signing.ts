import { createHmac, createSign, createVerify, type KeyObject, randomInt } from 'node:crypto';

/** The one algorithm name the platform accepts in the `Credential` header. */
export const ALGORITHM = 'Wonder-RSA-SHA256';

const NONCE_ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

export interface SigningInput {
  /** `yyyyMMddHHmmss` in UTC, as carried in the `Credential` header. */
  requestTime: string;
  nonce: string;
  method: string;
  /** Path plus `?query` exactly as sent, no scheme or host. */
  target: string;
  /** The exact body bytes sent; empty for no body. */
  body: Uint8Array | string;
}

export interface SigningSteps {
  k1: Buffer;
  k2: Buffer;
  presign: Buffer;
  /** Lowercase hex of HMAC(k2, presign): the ASCII text that the RSA key signs. */
  message: string;
}

export interface SignedHeaders {
  Credential: string;
  Nonce: string;
  Signature: string;
}

export function signingSteps(input: SigningInput): SigningSteps {
  const k1 = createHmac('sha256', Buffer.from(input.nonce, 'utf8')).update(input.requestTime).digest();
  const k2 = createHmac('sha256', k1).update(ALGORITHM).digest();
  const body = typeof input.body === 'string' ? Buffer.from(input.body, 'utf8') : input.body;
  const head = Buffer.from(`${input.method.toUpperCase()}\n${input.target}`, 'utf8');
  const presign = body.length > 0 ? Buffer.concat([head, Buffer.from('\n'), body]) : head;
  const message = createHmac('sha256', k2).update(presign).digest('hex');
  return { k1, k2, presign, message };
}

export function signingMessage(input: SigningInput): string {
  return signingSteps(input).message;
}

export function signMessage(message: string, privateKey: KeyObject | string): string {
  return createSign('sha256').update(message, 'ascii').sign(privateKey, 'base64');
}

export function verifyMessage(message: string, signatureBase64: string, publicKey: KeyObject | string): boolean {
  return createVerify('sha256').update(message, 'ascii').verify(publicKey, signatureBase64, 'base64');
}

/** `yyyyMMddHHmmss` in UTC. */
export function formatRequestTime(at: Date): string {
  return at.toISOString().replace(/[-:T]/g, '').slice(0, 14);
}

/** Parses `yyyyMMddHHmmss` (UTC); undefined when it is not a real instant. */
export function parseRequestTime(text: string): Date | undefined {
  const match = /^(\d{4})(\d{2})(\d{2})(\d{2})(\d{2})(\d{2})$/.exec(text);
  if (!match) return undefined;
  const [, y, mo, d, h, mi, s] = match.map(Number) as [number, number, number, number, number, number, number];
  const at = new Date(Date.UTC(y, mo - 1, d, h, mi, s));
  const roundTrips =
    at.getUTCFullYear() === y &&
    at.getUTCMonth() === mo - 1 &&
    at.getUTCDate() === d &&
    at.getUTCHours() === h &&
    at.getUTCMinutes() === mi &&
    at.getUTCSeconds() === s;
  return roundTrips ? at : undefined;
}

export function newNonce(length = 16): string {
  let nonce = '';
  for (let i = 0; i < length; i += 1) nonce += NONCE_ALPHABET[randomInt(NONCE_ALPHABET.length)];
  return nonce;
}

export interface SignRequestInput {
  appId: string;
  privateKey: KeyObject | string;
  method: string;
  target: string;
  body?: Uint8Array | string;
  at?: Date;
  nonce?: string;
}

/** The three authentication headers for one request (or one webhook delivery). */
export function signRequest(input: SignRequestInput): SignedHeaders {
  const requestTime = formatRequestTime(input.at ?? new Date());
  const nonce = input.nonce ?? newNonce();
  const message = signingMessage({
    requestTime,
    nonce,
    method: input.method,
    target: input.target,
    body: input.body ?? '',
  });
  return {
    Credential: `${input.appId}/${requestTime}/${ALGORITHM}`,
    Nonce: nonce,
    Signature: signMessage(message, input.privateKey),
  };
}
