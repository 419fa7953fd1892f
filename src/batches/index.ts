export { batchesModule } from './module.js';
