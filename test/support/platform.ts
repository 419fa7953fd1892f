import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { OpenedPlatform } from '../../src/context/open-platform.js';
import { openComposedPlatform } from '../../src/modules.js';
import type { Clock } from '../../src/platform/clock.js';
import { loadConfig } from '../../src/platform/config.js';
import { createLogger } from '../../src/platform/logger.js';
import { createTestSchema, POSTGRES_URL } from './postgres.js';

export interface TestPlatform extends OpenedPlatform {
  /** Opens another connection set to the same database, as a second process would have. */
  openSibling(wallClock: Clock): Promise<OpenedPlatform>;
  close(): Promise<void>;
}

/** The platform without HTTP, on a fresh SQLite folder or PostgreSQL schema: for verbs and background work. */
export async function openTestPlatform(wallClock: Clock): Promise<TestPlatform> {
  const dataDir = mkdtempSync(join(tmpdir(), 'paygate-platform-'));
  const schema = POSTGRES_URL ? await createTestSchema(POSTGRES_URL) : undefined;
  const config = loadConfig({
    PAYGATE_DATA_DIR: dataDir,
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
    ...(schema ? { DATABASE_URL: schema.url } : {}),
  });
  const logger = createLogger(config, process.stderr);
  const opened = await openComposedPlatform(config, { wallClock, logger });
  const siblings: OpenedPlatform[] = [];
  return {
    ...opened,
    async openSibling(siblingClock) {
      const sibling = await openComposedPlatform(config, { wallClock: siblingClock, logger });
      siblings.push(sibling);
      return sibling;
    },
    async close() {
      for (const sibling of siblings) await sibling.database.close();
      await opened.database.close();
      await schema?.drop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
