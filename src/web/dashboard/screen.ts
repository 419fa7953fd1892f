import type { Context, PlatformContext } from '../../context/context.js';
import type { Role } from '../../platform/roles.js';
import type { Html } from '../html.js';

/** Who is signed in, as the dashboard's frame and access checks need it. */
export interface SignedIn {
  merchantId: string;
  merchantName: string;
  personId: string;
  email: string;
  role: Role;
  /** The token every form of the session carries (CSRF). */
  formToken: string;
  /** Identifies the session to the module that keeps sessions (its id's hash), for signing out. */
  sessionKey: string;
}

/** Where the dashboard's sessions come from: the module that keeps people and sessions (one module has it). */
export interface DashboardSessions {
  /** The live session a cookie's id names; undefined when there is none (never was, ended, idle too long). */
  find(platform: PlatformContext, sessionId: string): Promise<Omit<SignedIn, 'merchantName'> | undefined>;
  /** Writes a line of the merchant's audit log for an action a screen took. */
  record(platform: PlatformContext, signedIn: SignedIn, address: string, entry: AuditNote): Promise<void>;
}

/** What a screen's action was, for the audit log: `transaction.refunded`, about `order 2611…, HKD 10.00`. */
export interface AuditNote {
  action: string;
  subject?: string;
}

interface ScreenRequestBase {
  id: string;
  params: Record<string, string>;
  query: Record<string, string | undefined>;
  /** A posted form's fields; empty for a GET. */
  form: Record<string, string>;
  /** The caller's address (behind a trusted proxy, the one it forwarded). */
  address: string;
  /** The hidden `_form` field every form of this page must carry: the session's token, or the browser's before sign-in. */
  formToken: string;
}

export interface PublicScreenRequest extends ScreenRequestBase {
  /** Who is signed in on this browser, if anyone (the sign-in page sends them on). */
  signedIn: SignedIn | undefined;
}

export interface SignedInScreenRequest extends ScreenRequestBase {
  signedIn: SignedIn;
}

/**
 * What a screen answers: a page, or a redirect after a form (the browser then fetches with GET, so a reload posts
 * nothing twice), which may start a session (its new id in the cookie) or end the one the browser has.
 */
export type ScreenAnswer =
  | { status: number; page: DashboardPage; audit?: AuditNote }
  | { redirect: string; startSession?: string; endSession?: true; audit?: AuditNote };

/** A page's content; the frame (navigation, who is signed in, sign-out) is added around it for signed-in screens. */
export interface DashboardPage {
  title: string;
  body: Html;
}

/** A screen anyone may open (the sign-in page). Its forms are checked against the browser's own form token. */
export interface PublicScreen {
  method: 'GET' | 'POST';
  url: string;
  access: 'anyone';
  handle(platform: PlatformContext, request: PublicScreenRequest): Promise<ScreenAnswer>;
}

/**
 * A screen for someone signed in with at least `access`, checked on the server for every request: a viewer's form
 * posted to an admin's screen is refused, whether or not a page showed it. The handler gets the merchant's context,
 * with the person as its actor, so that every action goes through the same verbs as the API; an action that does not
 * keep its own audit line says what it did in its answer (`audit`), and the dashboard writes it once the verb returns.
 */
export interface SignedInScreen {
  method: 'GET' | 'POST';
  url: string;
  access: Role;
  /** Shown in the navigation (a GET screen), in the modules' order, to those whose role may open it. */
  menu?: string;
  handle(ctx: Context, request: SignedInScreenRequest): Promise<ScreenAnswer>;
}

export type Screen = PublicScreen | SignedInScreen;
