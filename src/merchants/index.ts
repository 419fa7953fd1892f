export { type AppSummary, listMerchantApps, webhookPublicKeyOf } from './apps.js';
export { APP_CLIENT_OPTIONS, appClient, unreachable } from './cli/app-client.js';
export { ensureDemoApp } from './demo.js';
export type { DemoApp } from './demo-file.js';
export { merchantsModule } from './module.js';
