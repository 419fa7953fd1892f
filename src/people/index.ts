export { type Acting, OPERATOR } from './audit.js';
export { type DemoSignIn, ensureDemoPerson } from './demo.js';
export { peopleModule } from './module.js';
