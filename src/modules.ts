import type { Logger } from 'pino';
import { batchesModule } from './batches/index.js';
import type { CommandEntry } from './cli/command.js';
import { MIGRATE_COMMAND } from './cli/migrate.js';
import { SERVE_COMMAND } from './cli/serve.js';
import type { EventReaction, PlatformContext } from './context/context.js';
import { type OpenedPlatform, openPlatform } from './context/open-platform.js';
import { customersModule } from './customers/index.js';
import { echoModule } from './echo/index.js';
import { EVENT_ERRORS } from './events/errors.js';
import { HTTP_ERRORS } from './http/errors.js';
import { issuingModule } from './issuing/index.js';
import { labModule } from './lab/index.js';
import { ledgerModule } from './ledger/index.js';
import { merchantsModule } from './merchants/index.js';
import type { Module } from './module.js';
import { ordersModule } from './orders/index.js';
import { DEFAULT_TOKENS, paymentTokensModule } from './payment-tokens/index.js';
import { payoutsModule } from './payouts/index.js';
import { peopleModule } from './people/index.js';
import type { Clock } from './platform/clock.js';
import type { Config, Mode } from './platform/config.js';
import { type ErrorDefinition, PLATFORM_ERRORS } from './platform/errors.js';
import { RAIL_ERRORS } from './rails/errors.js';
import { withRailFaults } from './rails/faults.js';
import { recurringModule } from './recurring/index.js';
import { sandboxModule } from './sandbox/index.js';
import { usersModule } from './users/index.js';
import { webhooksModule } from './webhooks/index.js';

/**
 * Every capability of the platform, one line each: adding a capability means adding its folder and a line here.
 * Customers take their default-token rules from the payment tokens capability, which builds on them.
 */
export const MODULES: readonly Module[] = [
  echoModule,
  merchantsModule,
  customersModule(DEFAULT_TOKENS),
  paymentTokensModule,
  ordersModule,
  recurringModule,
  batchesModule,
  ledgerModule,
  usersModule,
  issuingModule,
  payoutsModule,
  webhooksModule,
  sandboxModule,
  labModule,
  peopleModule,
];

/** The `paygate` commands: the platform's own (serve, migrate), then every capability's. */
export const COMMANDS: readonly CommandEntry[] = [
  SERVE_COMMAND,
  MIGRATE_COMMAND,
  ...MODULES.flatMap((module) => module.commands ?? []),
];

/**
 * The modules a platform in this mode runs: the sandbox's simulations exist in sandbox mode only (the sandbox module,
 * and each module's sandbox routes and pages, which join its others there).
 */
export function modulesFor(mode: Mode): Module[] {
  if (mode !== 'sandbox') return MODULES.filter((module) => !module.sandboxOnly);
  return MODULES.map((module) =>
    module.sandboxRoutes || module.sandboxPages
      ? {
          ...module,
          routes: [...(module.routes ?? []), ...(module.sandboxRoutes ?? [])],
          pages: [...(module.pages ?? []), ...(module.sandboxPages ?? [])],
        }
      : module,
  );
}

/**
 * The closed list of error codes: the shared mechanisms' and every module's, by code (the two text codes found in
 * the wild first). A code or a name given twice is a mistake caught here, at load.
 */
export const ERRORS: Readonly<Record<string, ErrorDefinition>> = joinErrors([
  PLATFORM_ERRORS,
  HTTP_ERRORS,
  RAIL_ERRORS,
  EVENT_ERRORS,
  ...MODULES.map((module) => module.errors ?? {}),
]);

function joinErrors(
  lists: ReadonlyArray<Readonly<Record<string, ErrorDefinition>>>,
): Readonly<Record<string, ErrorDefinition>> {
  const entries = lists.flatMap((list) => Object.entries(list));
  const names = new Set<string>();
  const codes = new Set<string>();
  for (const [name, { code }] of entries) {
    if (names.has(name) || codes.has(code)) throw new Error(`error ${name} (${code}) is declared twice`);
    names.add(name);
    codes.add(code);
  }
  const key = (error: ErrorDefinition) => (/^\d+$/.test(error.code) ? Number(error.code) : -1);
  entries.sort(([, a], [, b]) => key(a) - key(b) || a.code.localeCompare(b.code));
  return Object.freeze(Object.fromEntries(entries));
}

/** Every capability's records that post to the ledger: what `paygate ledger check` compares with the journal. */
export const LEDGER_SOURCES = MODULES.flatMap((module) => module.ledgerSources ?? []);

/** Opens the database (migrated) with every module's part in the platform: what the server, the CLI and tests share. */
export async function openComposedPlatform(
  config: Config,
  options: { wallClock?: Clock; logger?: Logger; server?: boolean } = {},
): Promise<OpenedPlatform> {
  const modules = modulesFor(config.mode);
  const merchantSetup = modules.flatMap((module) =>
    module.merchantCreated ? [module.merchantCreated.bind(module)] : [],
  );
  const eventReactions = new Map<string, EventReaction[]>();
  for (const { action, run } of modules.flatMap((module) => module.reactions ?? []))
    eventReactions.set(action, [...(eventReactions.get(action) ?? []), run]);
  const opened = await openPlatform(config, {
    ...options,
    merchantSetup,
    eventReactions,
    ledgerSources: LEDGER_SOURCES,
  });
  const [faults, ...more] = modules.flatMap((module) =>
    module.railFaults ? [module.railFaults(opened.platform)] : [],
  );
  if (more.length > 0) throw new Error('only one module may lay faults over the rails');
  if (faults && config.mode === 'sandbox') opened.platform.rails = withRailFaults(opened.platform.rails, faults);
  return opened;
}

/** Runs each module's start-up work: before a process takes requests. */
export async function startModules(platform: PlatformContext, modules: readonly Module[]): Promise<void> {
  for (const module of modules) await module.atStart?.(platform);
}
