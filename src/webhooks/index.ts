export { webhooksModule } from './module.js';
