import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PROJECT_ROOT } from '../../src/platform/version.js';

const fixtures = join(PROJECT_ROOT, 'test', 'fixtures');

export function fixture(...path: string[]): string {
  return readFileSync(join(fixtures, ...path), 'utf8');
}

/** The reference test key pair (from the interface's signing vectors): for tests only. */
export const TEST_PRIVATE_KEY = fixture('signing', 'test-private-key.pem');
export const TEST_PUBLIC_KEY = fixture('signing', 'test-public-key.pem');

export interface SigningVector {
  credential: string;
  nonce: string;
  method: string;
  uri: string;
  body: string;
  k1: string;
  k2: string;
  presign: string;
  message: string;
  signature: string;
}

export const VECTORS = JSON.parse(fixture('signing', 'vectors.json')) as { app_id: string; vectors: SigningVector[] };
