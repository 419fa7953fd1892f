import type { FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import type { PlatformContext } from './context/context.js';
import { WebhookSender } from './events/sender.js';
import { buildHttpApp } from './http/app.js';
import { openNonceStore } from './http/auth/nonce-store.js';
import { freeProcessingClaims } from './http/idempotency/store.js';
import { type DemoApp, ensureDemoApp } from './merchants/index.js';
import { ERRORS, modulesFor, openComposedPlatform, startModules } from './modules.js';
import { type DemoSignIn, ensureDemoPerson } from './people/index.js';
import { type Clock, systemClock } from './platform/clock.js';
import type { Config } from './platform/config.js';
import { lockDataDir } from './platform/database/data-dir-lock.js';
import { createMetrics } from './platform/metrics.js';
import { VERSION } from './platform/version.js';
import { combineDueWork } from './scheduler/due-work.js';
import { DELIVERY_QUEUE, freeAllLeases, JOB_QUEUE, realignAllDue } from './scheduler/lease.js';
import { Scheduler } from './scheduler/scheduler.js';
import { recoverOperations, recoveryJob, upkeepJobs } from './upkeep.js';

export interface ServerOptions {
  wallClock?: Clock;
  logger?: Logger;
  onContractBreach?(route: string, problem: string): void;
}

export interface RunningServer {
  /** Where the server listens, e.g. http://127.0.0.1:8080. */
  url: string;
  app: FastifyInstance;
  platform: PlatformContext;
  scheduler: Scheduler;
  webhooks: WebhookSender;
  /** Set when the demo merchant exists (sandbox mode with PAYGATE_DEMO not 0). */
  demo: { demo: DemoApp; created: boolean; signIn: DemoSignIn | undefined } | undefined;
  /** Stops taking requests, finishes those in flight and the running job, then closes the database. */
  close(): Promise<void>;
}

/**
 * The composition root of a server process: the modules of this mode give the signed routes, the hosted pages,
 * the jobs, the error codes and the rail operations that recovery looks after; the shared mechanisms run them.
 */
export async function startServer(config: Config, options: ServerOptions = {}): Promise<RunningServer> {
  const startedAt = (options.wallClock ?? systemClock).now().getTime();
  const lock = config.databaseUrl ? undefined : lockDataDir(config.dataDir);
  // The one teardown, for a start that failed half-way and for close() alike: each step is added as what it undoes
  // is opened, and they run last-added first, once.
  const teardown: Array<() => unknown> = [() => lock?.release()];
  let closing: Promise<void> | undefined;
  const close = () =>
    (closing ??= (async () => {
      for (const step of teardown.reverse()) await step();
    })());
  try {
    const { platform, database, logger, migrations } = await openComposedPlatform(config, { ...options, server: true });
    teardown.push(() => database.close());
    if (migrations.length > 0) logger.info({ migrations }, 'database migrated');
    const modules = modulesFor(config.mode);
    const railOperations = modules.flatMap((module) => module.railOperations ?? []);

    const demoApp = config.demo ? await ensureDemoApp(platform) : undefined;
    const demo = demoApp && { ...demoApp, signIn: await ensureDemoPerson(platform, demoApp.demo.merchant_id) };
    const nonces = openNonceStore(database);
    teardown.push(() => nonces.close());
    const metrics = createMetrics();

    const scheduler = new Scheduler({
      platform,
      pollMs: config.schedulerPollMs,
      leaseMs: config.jobLeaseMs,
      metrics,
    }).register(
      ...upkeepJobs({ nonces }),
      recoveryJob(railOperations, config.recoveryAfterMs),
      ...modules.flatMap((module) => module.jobs ?? []),
    );
    const [hooks, ...more] = modules.flatMap((module) =>
      module.deliveryHooks ? [module.deliveryHooks(platform)] : [],
    );
    if (more.length > 0) throw new Error('only one module may hook into webhook deliveries');
    const webhooks = new WebhookSender({
      platform,
      pollMs: config.schedulerPollMs,
      timeoutMs: config.webhookTimeoutMs,
      metrics,
      hooks,
    });
    // After the requests: a clock move still answering may be sending webhooks.
    teardown.push(() => webhooks.stop());
    platform.dueWork = combineDueWork(scheduler, webhooks);
    platform.outbox = webhooks;
    // Before the first request: on SQLite the data-folder lock proves the previous process is gone, so the
    // claims and leases it held are free, and what it left between two commits is recovered now, without
    // waiting; on PostgreSQL other processes may be mid-call, so the periodic job waits until such calls are old.
    if (database.engine === 'sqlite') {
      await freeProcessingClaims(database.db);
      await freeAllLeases(database.db, JOB_QUEUE);
      await freeAllLeases(database.db, DELIVERY_QUEUE);
    }
    // A process stopped while moving a sandbox clock may have left work due later on the wall clock than its
    // business time now means: every row back in step (a no-op when none is out).
    await realignAllDue(database.db, JOB_QUEUE);
    await realignAllDue(database.db, DELIVERY_QUEUE);
    await startModules(platform, modules);
    if (database.engine === 'sqlite') await recoverOperations(platform, railOperations, startedAt);

    const [dashboardSessions, ...moreSessions] = modules.flatMap((module) =>
      module.dashboardSessions ? [module.dashboardSessions] : [],
    );
    if (moreSessions.length > 0) throw new Error('only one module may keep dashboard sessions');
    let shuttingDown = false;
    const app = await buildHttpApp({
      platform,
      nonces,
      metrics,
      version: VERSION,
      routes: modules.flatMap((module) => module.routes ?? []),
      pages: modules.flatMap((module) => module.pages ?? []),
      screens: modules.flatMap((module) => module.screens ?? []),
      dashboardSessions,
      tags: modules.flatMap((module) => module.tags ?? []),
      errors: Object.values(ERRORS),
      isShuttingDown: () => shuttingDown,
      onContractBreach: options.onContractBreach,
    });
    // Stop listening and stop taking jobs together; wait for requests in flight and the running job.
    teardown.push(() => Promise.all([app.close(), scheduler.stop()]));
    await app.listen({ host: config.host, port: config.port });
    await scheduler.start();
    webhooks.start();

    const address = app.server.address();
    const port = typeof address === 'object' && address ? address.port : config.port;
    const host = config.host.includes(':') ? `[${config.host}]` : config.host;
    // Links handed out (payment pages, 3-D Secure) must name the port the system gave, not "0".
    if (!config.publicBaseUrlSet && config.port === 0) config.publicBaseUrl = `http://${host}:${port}`;
    logger.info({ url: `http://${host}:${port}`, mode: config.mode, database: database.engine }, 'paygate listening');

    return {
      url: `http://${host}:${port}`,
      app,
      platform,
      scheduler,
      webhooks,
      demo,
      close() {
        shuttingDown = true;
        return close();
      },
    };
  } catch (error) {
    await close();
    throw error;
  }
}
