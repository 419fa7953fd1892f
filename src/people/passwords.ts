import { randomBytes, scrypt, timingSafeEqual } from 'node:crypto';
import { AppError, PLATFORM_ERRORS } from '../platform/errors.js';

/**
 * Passwords are kept as scrypt hashes (memory-hard, in node:crypto): N = 2^15, r = 8, p = 1, a 16-byte salt and a
 * 32-byte key, written `scrypt$N$r$p$salt$key` so that stronger parameters can come later without a migration.
 * One hash takes tens of milliseconds and 32 MiB: a process computes at most two at once and keeps at most
 * {@link MAX_WAITING} waiting, so that a crowd of sign-in attempts cannot take the server from everyone (the rest
 * are told the server is busy).
 */
const COST = { N: 2 ** 15, r: 8, p: 1 };
const KEY_BYTES = 32;
const SALT_BYTES = 16;
const MAX_AT_ONCE = 2;
const MAX_WAITING = 32;

export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(SALT_BYTES);
  const key = await derive(password, salt, COST);
  return ['scrypt', COST.N, COST.r, COST.p, salt.toString('base64url'), key.toString('base64url')].join('$');
}

/** Whether the password is the one hashed; a hash that cannot be read matches nothing. */
export async function passwordMatches(password: string, hash: string): Promise<boolean> {
  const [scheme, n, r, p, salt, key] = hash.split('$');
  if (scheme !== 'scrypt' || salt === undefined || key === undefined) return false;
  const expected = Buffer.from(key, 'base64url');
  const actual = await derive(password, Buffer.from(salt, 'base64url'), { N: Number(n), r: Number(r), p: Number(p) });
  return actual.length === expected.length && timingSafeEqual(actual, expected);
}

/** A hash no password matches, spent on an unknown address so that its answer takes as long as a wrong password's. */
export const NOBODY_HASH = `scrypt$${COST.N}$${COST.r}$${COST.p}$${Buffer.alloc(SALT_BYTES).toString('base64url')}$${Buffer.alloc(KEY_BYTES).toString('base64url')}`;

/** A password for a person added without one: 20 characters of base64url, about 120 bits. */
export function generatePassword(): string {
  return randomBytes(15).toString('base64url');
}

let running = 0;
const waiting: Array<() => void> = [];

async function derive(password: string, salt: Buffer, cost: { N: number; r: number; p: number }): Promise<Buffer> {
  await takeSlot();
  try {
    return await new Promise<Buffer>((resolve, reject) =>
      scrypt(password.normalize('NFC'), salt, KEY_BYTES, { ...cost, maxmem: 256 * cost.N * cost.r }, (error, key) =>
        error ? reject(error) : resolve(key),
      ),
    );
  } finally {
    giveSlotBack();
  }
}

async function takeSlot(): Promise<void> {
  if (running < MAX_AT_ONCE) {
    running += 1;
    return;
  }
  if (waiting.length >= MAX_WAITING) throw new AppError(PLATFORM_ERRORS.busy);
  // The slot is handed over by giveSlotBack: `running` stays as it is.
  await new Promise<void>((resolve) => waiting.push(resolve));
}

function giveSlotBack(): void {
  const next = waiting.shift();
  if (next) next();
  else running -= 1;
}
