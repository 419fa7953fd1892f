import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { PlatformContext } from '../context/context.js';
import { OPERATOR } from './audit.js';
import { generatePassword, hashPassword } from './passwords.js';
import { addPerson } from './people.js';
import { findPersonByEmail, updatePerson } from './store.js';

/** The demo merchant's dashboard sign-in, printed at every start in sandbox mode as the demo key is. */
export interface DemoSignIn {
  email: string;
  password: string;
  /** Where the password is kept: what a log names instead of the password. */
  file: string;
}

const DEMO_EMAIL = 'demo@paygate.test';
const DEMO_SIGN_IN_FILE = 'demo-dashboard.json';

/**
 * The demo merchant's owner in the dashboard: made at the first start with a generated password, kept in the data
 * folder (readable by its owner only) beside the demo key. A data folder without it gets a new password.
 */
export async function ensureDemoPerson(ctx: PlatformContext, merchantId: string): Promise<DemoSignIn | undefined> {
  const file = join(ctx.config.dataDir, DEMO_SIGN_IN_FILE);
  const existing = await findPersonByEmail(ctx.db, DEMO_EMAIL);
  // The address is an earlier demo merchant's (the demo app was made again in this database): no demo sign-in.
  if (existing && existing.merchant_id !== merchantId) return undefined;
  if (existing && existing.merchant_id === merchantId && existsSync(file)) {
    const saved = JSON.parse(readFileSync(file, 'utf8')) as { email: string; password: string };
    if (saved.email === DEMO_EMAIL) return { ...saved, file };
  }
  let password: string;
  if (existing && existing.merchant_id === merchantId) {
    password = generatePassword();
    await updatePerson(ctx.db, merchantId, existing.id, {
      password_hash: await hashPassword(password),
      updated_at: ctx.wallClock.now().getTime(),
    });
  } else {
    const added = await addPerson(ctx, { merchantId, email: DEMO_EMAIL, role: 'owner' }, OPERATOR);
    password = added.password!;
  }
  writeFileSync(file, `${JSON.stringify({ email: DEMO_EMAIL, password }, null, 2)}\n`, { mode: 0o600 });
  return { email: DEMO_EMAIL, password, file };
}
