import type { DashboardSessions } from '../../web/dashboard/screen.js';
import { recordAction } from '../audit.js';
import { sessionOf } from '../sessions.js';

/** The dashboard's sessions, as the dashboard's screens find them from the cookie. */
export const DASHBOARD_SESSIONS: DashboardSessions = {
  async find(platform, sessionId) {
    const session = await sessionOf(platform, sessionId);
    return (
      session && {
        merchantId: session.person.merchantId,
        personId: session.person.id,
        email: session.person.email,
        role: session.person.role,
        formToken: session.formToken,
        sessionKey: session.idHash,
      }
    );
  },
  async record(platform, signedIn, address, entry) {
    await recordAction(
      platform,
      signedIn.merchantId,
      { person: { id: signedIn.personId, email: signedIn.email }, address },
      entry,
    );
  },
};
