export { payoutsModule } from './module.js';
