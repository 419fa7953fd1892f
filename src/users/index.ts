export { USER_ERRORS } from './errors.js';
export { EXAMPLE_USER_ID } from './examples.js';
export { usersModule } from './module.js';
export { CreateUserBody, UpdateUserBody } from './schemas.js';
export type { UserRow } from './users.js';
export { createUser, editUser, findUserByUserId } from './users.js';
