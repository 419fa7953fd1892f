export { EXAMPLE_USER_ID } from './examples.js';
export { usersModule } from './module.js';
export { findUserByUserId } from './users.js';
