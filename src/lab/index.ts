export { labModule } from './module.js';
