import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * The demo app's file in the data folder: written by the server's first start (demo.ts), read by the commands that
 * sign as it (`paygate call`), which load nothing else of the platform.
 */
export const DEMO_FILE = 'demo-app.json';

export interface DemoApp {
  app_id: string;
  merchant_id: string;
  private_key_path: string;
  public_key_path: string;
  webhook_public_key_path: string;
}

export function readDemoApp(dataDir: string): DemoApp | undefined {
  const file = join(dataDir, DEMO_FILE);
  return existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as DemoApp) : undefined;
}
