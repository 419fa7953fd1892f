import type { CommandEntry } from './cli/command.js';
import type { Context, EventReaction, LedgerSource, PlatformContext } from './context/context.js';
import type { DeliveryHooks } from './events/delivery-hooks.js';
import type { EventType } from './events/event-type.js';
import type { AnyRoute } from './http/route.js';
import type { ErrorDefinition } from './platform/errors.js';
import type { Merchant } from './platform/tenants.js';
import type { RailOperationKind } from './rails/operation.js';
import type { RailFaults } from './rails/rail-faults.js';
import type { JobDefinition } from './scheduler/scheduler.js';
import type { DashboardSessions, Screen } from './web/dashboard/screen.js';
import type { PageRoute } from './web/pages.js';

/**
 * What a capability brings to the platform, in one manifest (`<capability>/module.ts`). The composition root
 * (`src/modules.ts`) lists the modules; the HTTP layer, the hosted pages, the scheduler, recovery and the command
 * line take what they need from that list and know no capability themselves.
 */
export interface Module {
  /** The capability's folder. */
  readonly name: string;
  /** Only in sandbox mode (the sandbox's own simulations): absent from a live platform altogether. */
  readonly sandboxOnly?: boolean;
  /** Its signed API, one declaration per endpoint. */
  readonly routes?: readonly AnyRoute[];
  /** Its OpenAPI tags. */
  readonly tags?: ReadonlyArray<{ name: string; description: string }>;
  /** Its error codes: part of the closed list. */
  readonly errors?: Readonly<Record<string, ErrorDefinition>>;
  /** The events it sends, each with how it renders its subject. */
  readonly events?: ReadonlyArray<EventType<never>>;
  /** Its hosted pages (unsigned, for people with a link). */
  readonly pages?: readonly PageRoute[];
  /** Its screens of the merchant dashboard (docs/dashboard.md), under /dashboard. */
  readonly screens?: readonly Screen[];
  /** The dashboard's sessions, for every screen: at most one module keeps them. */
  readonly dashboardSessions?: DashboardSessions;
  /** Its sandbox simulations (answering for the payer, the bank, the card network...): in sandbox mode only. */
  readonly sandboxRoutes?: readonly AnyRoute[];
  /** Its sandbox stand-in pages (a card issuer's 3-D Secure page, a wallet app): in sandbox mode only. */
  readonly sandboxPages?: readonly PageRoute[];
  /** Its work due on a merchant's business clock, and its own upkeep. */
  readonly jobs?: readonly JobDefinition[];
  /** Its two-phase operations on a rail, which recovery finds after a crash. */
  readonly railOperations?: ReadonlyArray<RailOperationKind<Context>>;
  /** Its `paygate` commands (`defineCommand`, or `defineCommandGroup` for several under one name). */
  readonly commands?: readonly CommandEntry[];
  /** What it sets up for a new merchant, in the transaction that creates the merchant. */
  merchantCreated?(ctx: PlatformContext, merchant: Merchant): Promise<void>;
  /** What it does when another capability's event happens (by action), in the transaction that records it. */
  readonly reactions?: ReadonlyArray<{ action: string; run: EventReaction }>;
  /** Its records that post to the ledger, for the ledger's check. */
  readonly ledgerSources?: readonly LedgerSource[];
  /** What it adds around webhook deliveries (the sandbox lab: fault rules and captures). At most one module has it. */
  deliveryHooks?(platform: PlatformContext): DeliveryHooks;
  /** Faults it lays over the rails the platform simulates (the sandbox lab's rail rules), in sandbox mode. */
  railFaults?(platform: PlatformContext): RailFaults;
  /** What it does before a process takes requests. */
  atStart?(platform: PlatformContext): Promise<void>;
}

export function defineModule(module: Module): Module {
  return module;
}
