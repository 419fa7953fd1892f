export { sandboxModule } from './module.js';
