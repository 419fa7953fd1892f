import { defineModule } from '../module.js';
import { platformJob } from '../scheduler/scheduler.js';
import { DASHBOARD_COMMAND } from './cli.js';
import { PEOPLE_ERRORS } from './errors.js';
import { AUDIT_SCREENS } from './pages/audit.js';
import { HOME_SCREENS } from './pages/home.js';
import { PEOPLE_SCREENS } from './pages/people.js';
import { DASHBOARD_SESSIONS } from './pages/sessions.js';
import { SIGN_IN_SCREENS } from './pages/sign-in.js';
import { purgeEndedSessions } from './sessions.js';

/**
 * The people of a merchant's dashboard (docs/dashboard.md): who signs in, with which role, their sessions, and the
 * audit log of what they did. It brings the dashboard's sign-in, home, people and audit screens, and keeps the
 * sessions every other screen is opened with.
 */
export const peopleModule = defineModule({
  name: 'people',
  errors: PEOPLE_ERRORS,
  screens: [...SIGN_IN_SCREENS, ...HOME_SCREENS, ...PEOPLE_SCREENS, ...AUDIT_SCREENS],
  dashboardSessions: DASHBOARD_SESSIONS,
  commands: [DASHBOARD_COMMAND],
  jobs: [platformJob('people.purge_ended_sessions', purgeEndedSessions, { everyMs: 10 * 60_000 })],
});
