export { APP_CLIENT_OPTIONS, appClient, unreachable } from './cli/app-client.js';
export type { DemoApp } from './demo.js';
export { ensureDemoApp } from './demo.js';
export { merchantsModule } from './module.js';
