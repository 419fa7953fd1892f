export { issuingModule } from './module.js';
