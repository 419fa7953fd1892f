export { echoModule } from './module.js';
