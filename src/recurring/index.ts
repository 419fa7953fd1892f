export { recurringModule } from './module.js';
