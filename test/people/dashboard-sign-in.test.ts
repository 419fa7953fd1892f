import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { byTestId, DashboardBrowser } from '../support/dashboard-browser.js';
import { runCli } from '../support/processes.js';
import { startTestServer, type TestMerchant, type TestServer } from '../support/server.js';

// The dashboard's sign-in, people and roles (issue 37, point 1), through its pages as a browser posts them: sessions
// kept on the server with a new id at sign-in, a form token on every form, roles checked by the server, sign-in
// attempts limited, sign out everywhere, and every action in the audit log. People are added with the command line.

describe('dashboard sign-in, people and roles', () => {
  let server: TestServer;
  let shopA: TestMerchant;
  let shopB: TestMerchant;
  let folder: string;
  let ownerPassword: string;
  const ownerA = 'owner@shop-a.test';
  const ownerB = 'owner@shop-b.test';
  const bPassword = 'correct horse battery staple';

  const addPerson = async (args: string[]) => runCli(['dashboard', 'user', 'add', ...args, '--json'], server.env);

  before(async () => {
    server = await startTestServer();
    shopA = await server.newMerchant({ name: 'Shop A' });
    shopB = await server.newMerchant({ name: 'Shop B' });
    folder = mkdtempSync(join(tmpdir(), 'paygate-dashboard-'));
    const added = await addPerson(['--merchant', shopA.merchantId, '--email', 'Owner@Shop-A.test', '--role', 'owner']);
    assert.equal(added.code, 0, added.stderr);
    const reply = JSON.parse(added.stdout);
    assert.deepEqual([reply.email, reply.role, reply.merchant_id], [ownerA, 'owner', shopA.merchantId]);
    assert.match(reply.password, /^[A-Za-z0-9_-]{20}$/, 'a generated password, printed once');
    ownerPassword = reply.password;
    const passwordFile = join(folder, 'password');
    writeFileSync(passwordFile, `${bPassword}\n`);
    const fromFile = await addPerson([
      '--merchant',
      shopB.merchantId,
      '--email',
      ownerB,
      '--role',
      'owner',
      '--password-file',
      passwordFile,
    ]);
    assert.equal(fromFile.code, 0, fromFile.stderr);
    assert.equal(JSON.parse(fromFile.stdout).password, null, 'a password given is never printed');
  });
  after(async () => {
    await server.close();
    rmSync(folder, { recursive: true, force: true });
  });

  test('the command line refuses what is not a person, and lists the people', async () => {
    const badRole = await runCli(
      ['dashboard', 'user', 'add', '--merchant', shopA.merchantId, '--email', 'x@shop-a.test', '--role', 'boss'],
      server.env,
    );
    assert.equal(badRole.code, 1);
    assert.match(badRole.stderr, /^error 910103: The role must be one of owner, admin, viewer\.\n$/);
    const taken = await addPerson(['--merchant', shopB.merchantId, '--email', ownerA, '--role', 'viewer']);
    assert.equal(taken.code, 1);
    assert.match(taken.stdout, /"code":"910102"/);
    const list = await runCli(['dashboard', 'user', 'list', '--merchant', shopA.merchantId], server.env);
    assert.equal(list.stdout, `${ownerA}  owner\n`);
  });

  test('a page that needs a session sends the visitor to sign in and back', async () => {
    const browser = new DashboardBrowser(server.url);
    const home = await browser.get('/dashboard/people?x=1');
    assert.equal(home.status, 303);
    assert.equal(home.location, '/dashboard/sign-in?next=%2Fdashboard%2Fpeople%3Fx%3D1');
    const signedIn = await browser.signIn(ownerA, ownerPassword, '/dashboard/people?x=1');
    assert.equal(signedIn.status, 303);
    assert.equal(signedIn.location, '/dashboard/people?x=1');
    const people = await browser.get('/dashboard/people');
    assert.equal(people.status, 200);
    assert.deepEqual(byTestId(people.html, 'who'), [`${ownerA} (owner)`]);
    assert.match(people.headers.get('content-security-policy')!, /default-src 'none'/);
    // Another site is never where a sign-in goes next.
    const elsewhere = await new DashboardBrowser(server.url).signIn(ownerA, ownerPassword, '//evil.test/x');
    assert.equal(elsewhere.location, '/dashboard');
  });

  test('the session id is new at sign-in, kept in an HttpOnly, SameSite=Strict cookie; a wrong password says no more than that', async () => {
    const browser = new DashboardBrowser(server.url);
    // An id planted before sign-in (session fixation) is never the one signed in.
    browser.cookies.set('paygate_session', 'planted-by-someone-else-0123456789');
    const wrong = await browser.signIn(ownerA, 'not the password at all');
    const unknown = await new DashboardBrowser(server.url).signIn('nobody@shop-a.test', 'not the password at all');
    assert.equal(wrong.status, 400);
    assert.deepEqual(byTestId(wrong.html, 'problem'), ['The email address or the password is wrong.']);
    assert.deepEqual(byTestId(unknown.html, 'problem'), byTestId(wrong.html, 'problem'));
    const first = await browser.signIn(ownerA, ownerPassword);
    const cookie = first.setCookies.find((line) => line.startsWith('paygate_session='))!;
    assert.match(cookie, /; Path=\/dashboard; HttpOnly; SameSite=Strict/);
    const firstId = browser.cookies.get('paygate_session')!;
    assert.notEqual(firstId, 'planted-by-someone-else-0123456789');
    const stolen = new DashboardBrowser(server.url);
    stolen.cookies.set('paygate_session', firstId);
    assert.equal((await stolen.get('/dashboard')).status, 200);
    // Signing in again: another id, and the one before it ends.
    await browser.signIn(ownerA, ownerPassword);
    assert.notEqual(browser.cookies.get('paygate_session'), firstId);
    assert.equal((await browser.get('/dashboard')).status, 200);
    assert.equal((await stolen.get('/dashboard')).status, 303);
  });

  test('a form posted without its token is refused, and changes nothing', async () => {
    const browser = new DashboardBrowser(server.url);
    await browser.signIn(ownerA, ownerPassword);
    await browser.get('/dashboard/people');
    const forged = await browser.post('/dashboard/people', { _form: null, email: 'forged@shop-a.test', role: 'owner' });
    assert.equal(forged.status, 403);
    assert.match(byTestId(forged.html, 'problem')[0]!, /^The form has expired or did not come from this dashboard/);
    const otherToken = await browser.post('/dashboard/people', {
      _form: 'a-token-of-another-session-0123456789',
      email: 'forged@shop-a.test',
      role: 'owner',
    });
    assert.equal(otherToken.status, 403);
    const signInForged = await new DashboardBrowser(server.url).post('/dashboard/sign-in', {
      _form: null,
      email: ownerA,
      password: ownerPassword,
    });
    assert.equal(signInForged.status, 403, 'the sign-in form carries the browser its page was given to');
    const list = await runCli(['dashboard', 'user', 'list', '--merchant', shopA.merchantId, '--json'], server.env);
    assert.deepEqual(
      JSON.parse(list.stdout).people.map((person: { email: string }) => person.email),
      [ownerA],
    );
  });

  test("an owner adds people; a viewer reads but is refused by the server; the last owner stays; another merchant's person is unknown", async () => {
    const owner = new DashboardBrowser(server.url);
    await owner.signIn(ownerA, ownerPassword);
    await owner.get('/dashboard/people');
    const added = await owner.post('/dashboard/people', { email: 'viewer@shop-a.test', role: 'viewer', password: '' });
    assert.equal(added.status, 200);
    assert.match(
      byTestId(added.html, 'added')[0]!,
      /^Added viewer@shop-a\.test as viewer\. Their password, shown this once:/,
    );
    const viewerPassword = byTestId(added.html, 'password')[0]!;
    assert.match(viewerPassword, /^[A-Za-z0-9_-]{20}$/);
    assert.equal(byTestId(await (await owner.get('/dashboard/people')).html, 'password').length, 0, 'shown once only');
    const admin = await owner.post('/dashboard/people', {
      email: 'admin@shop-a.test',
      role: 'admin',
      password: 'an admin password',
    });
    assert.deepEqual(byTestId(admin.html, 'added'), ['Added admin@shop-a.test as admin.']);

    const viewer = new DashboardBrowser(server.url);
    assert.equal((await viewer.signIn('viewer@shop-a.test', viewerPassword)).status, 303);
    const readOnly = await viewer.get('/dashboard/people');
    assert.equal(readOnly.status, 200);
    assert.deepEqual(byTestId(readOnly.html, 'role'), ['admin', 'owner', 'viewer']);
    assert.doesNotMatch(readOnly.html, /Add someone/, 'a viewer is offered no change');
    // The page offers nothing, but a viewer's form is refused by the server all the same.
    const refused = await viewer.post('/dashboard/people', {
      email: 'sneaky@shop-a.test',
      role: 'owner',
      password: '',
    });
    assert.equal(refused.status, 403);
    assert.deepEqual(byTestId(refused.html, 'problem'), ['Your role (viewer) does not allow this: it needs an owner.']);
    const ids = [...readOnly.html.matchAll(/\/dashboard\/people\/([0-9a-f-]{36})\/role/g)].map((m) => m[1]);
    assert.equal(ids.length, 0, 'no form of an owner on a viewer page');

    const ownerPage = await owner.get('/dashboard/people');
    const idOf = (email: string) =>
      new RegExp(`for="role-([0-9a-f-]{36})">Role of ${email.replace(/\./g, '\\.')}<`).exec(ownerPage.html)![1]!;
    const viewerId = idOf('viewer@shop-a.test');
    const ownerId = idOf(ownerA);
    const demoteByViewer = await viewer.post(`/dashboard/people/${viewerId}/role`, { role: 'owner' });
    assert.equal(demoteByViewer.status, 403);

    const lastOwner = await owner.post(`/dashboard/people/${ownerId}/role`, { role: 'admin' });
    assert.equal(lastOwner.status, 409);
    assert.deepEqual(byTestId(lastOwner.html, 'problem'), [
      'A merchant keeps at least one owner: make someone else owner first.',
    ]);
    const promoted = await owner.post(`/dashboard/people/${viewerId}/role`, { role: 'admin' });
    assert.equal(promoted.status, 303);
    assert.deepEqual(byTestId((await viewer.get('/dashboard')).html, 'who'), ['viewer@shop-a.test (admin)']);

    // Shop B's owner names Shop A's person: answered as a person that does not exist.
    const ownerOfB = new DashboardBrowser(server.url);
    await ownerOfB.signIn(ownerB, bPassword);
    await ownerOfB.get('/dashboard/people');
    const foreign = await ownerOfB.post(`/dashboard/people/${viewerId}/remove`, {});
    const missing = await ownerOfB.post('/dashboard/people/00000000-0000-4000-8000-000000000000/remove', {});
    assert.equal(foreign.status, 404);
    assert.deepEqual(
      [foreign.status, byTestId(foreign.html, 'problem')],
      [missing.status, byTestId(missing.html, 'problem')],
    );
    assert.deepEqual(byTestId(missing.html, 'problem'), ['Person not found.']);
    assert.doesNotMatch((await ownerOfB.get('/dashboard/people')).html, /shop-a\.test/);
    assert.equal((await viewer.get('/dashboard')).status, 200, "Shop A's person is still there");

    // Removed: their sessions end with them.
    assert.equal((await owner.post(`/dashboard/people/${viewerId}/remove`, {})).status, 303);
    assert.equal((await viewer.get('/dashboard')).status, 303);
  });

  test('signing out ends the session; signing out everywhere ends every session of the person', async () => {
    const laptop = new DashboardBrowser(server.url);
    const phone = new DashboardBrowser(server.url);
    await laptop.signIn(ownerB, bPassword);
    await phone.signIn(ownerB, bPassword);
    await laptop.get('/dashboard');
    const everywhere = await laptop.post('/dashboard/sign-out-everywhere', {});
    assert.equal(everywhere.status, 303);
    assert.equal(everywhere.location, '/dashboard/sign-in');
    assert.equal((await laptop.get('/dashboard')).status, 303);
    assert.equal((await phone.get('/dashboard')).status, 303);

    await phone.signIn(ownerB, bPassword);
    await phone.get('/dashboard');
    const kept = phone.cookies.get('paygate_session')!;
    assert.equal((await phone.post('/dashboard/sign-out', {})).status, 303);
    assert.equal(phone.cookies.has('paygate_session'), false, 'the cookie is cleared');
    const replayed = new DashboardBrowser(server.url);
    replayed.cookies.set('paygate_session', kept);
    assert.equal(
      (await replayed.get('/dashboard')).status,
      303,
      'the session ended on the server, not only in the browser',
    );
  });

  test('a session idle longer than the configured time ends', async () => {
    const browser = new DashboardBrowser(server.url);
    await browser.signIn(ownerB, bPassword);
    assert.equal((await browser.get('/dashboard')).status, 200);
    server.clock.advance(29 * 60_000);
    assert.equal((await browser.get('/dashboard')).status, 200, 'each request keeps it alive');
    server.clock.advance(29 * 60_000);
    assert.equal((await browser.get('/dashboard')).status, 200);
    server.clock.advance(31 * 60_000);
    const idle = await browser.get('/dashboard');
    assert.equal(idle.status, 303);
    assert.match(idle.location!, /^\/dashboard\/sign-in\?next=/);
  });

  test('the audit log shows who did what, when and from where', async () => {
    const browser = new DashboardBrowser(server.url);
    await browser.signIn(ownerA, ownerPassword);
    const audit = await browser.get('/dashboard/audit');
    assert.equal(audit.status, 200);
    const actions = byTestId(audit.html, 'action');
    for (const action of ['person.added', 'signed_in', 'sign_in.failed', 'person.role_changed', 'person.removed'])
      assert.ok(actions.includes(action), `${action} in ${actions.join(', ')}`);
    const rows = byTestId(audit.html, 'audit-entry');
    assert.ok(
      rows.some((row) =>
        /owner@shop-a\.test person\.added viewer@shop-a\.test \(viewer\) (127\.0\.0\.1|::1)/.test(row),
      ),
      rows.join('\n'),
    );
    assert.ok(rows.some((row) => /operator person\.added owner@shop-a\.test \(owner\) command line/.test(row)));
    assert.ok(
      rows.every((row) => !/shop-b/.test(row)),
      "another merchant's actions are not in it",
    );
    const bAudit = new DashboardBrowser(server.url);
    await bAudit.signIn(ownerB, bPassword);
    const bActions = byTestId((await bAudit.get('/dashboard/audit')).html, 'action');
    assert.ok(bActions.includes('signed_out_everywhere') && bActions.includes('signed_out'), bActions.join(', '));
  });

  test('sign-in attempts are limited per account, even with the right password after', async () => {
    const browser = new DashboardBrowser(server.url);
    for (let attempt = 0; attempt < 10; attempt += 1)
      assert.equal((await browser.signIn(ownerB, `wrong password ${attempt}`)).status, 400);
    const limited = await browser.signIn(ownerB, bPassword);
    assert.equal(limited.status, 429);
    assert.deepEqual(byTestId(limited.html, 'problem'), [
      'Too many failed sign-ins from this address or for this account: try again later.',
    ]);
    assert.equal(browser.cookies.has('paygate_session'), false);
    server.clock.advance(16 * 60_000);
    assert.equal((await browser.signIn(ownerB, bPassword)).status, 303, 'the window passes');
  });

  test('attempts sent at once are counted one by one: no more wrong passwords get checked than the limit', async () => {
    const answers = await Promise.all(
      Array.from({ length: 15 }, (_, attempt) => new DashboardBrowser(server.url).signIn(ownerA, `guess ${attempt}`)),
    );
    const statuses = answers.map((answer) => answer.status).sort();
    assert.deepEqual(statuses, [...Array(10).fill(400), ...Array(5).fill(429)]);
    server.clock.advance(16 * 60_000);
  });

  test('two owners demoting each other at once: one of them stays owner', async () => {
    const first = new DashboardBrowser(server.url);
    await first.signIn(ownerA, ownerPassword);
    await first.get('/dashboard/people');
    const added = await first.post('/dashboard/people', {
      email: 'second-owner@shop-a.test',
      role: 'owner',
      password: 'the second owner password',
    });
    assert.deepEqual(byTestId(added.html, 'added'), ['Added second-owner@shop-a.test as owner.']);
    const second = new DashboardBrowser(server.url);
    await second.signIn('second-owner@shop-a.test', 'the second owner password');
    const page = await second.get('/dashboard/people');
    const idOf = (email: string) =>
      new RegExp(`for="role-([0-9a-f-]{36})">Role of ${email.replace(/\./g, '\\.')}<`).exec(page.html)![1]!;
    await first.get('/dashboard/people');
    const [a, b] = await Promise.all([
      first.post(`/dashboard/people/${idOf('second-owner@shop-a.test')}/role`, { role: 'viewer' }),
      second.post(`/dashboard/people/${idOf(ownerA)}/role`, { role: 'viewer' }),
    ]);
    // The one second is refused: by the role check when the first already made them a viewer, or else by the last-owner
    // rule, counted under the lock on the merchant's people.
    const [done, refused] = [a.status, b.status].sort();
    assert.equal(done, 303);
    assert.ok(refused === 403 || refused === 409, String(refused));
    const list = await runCli(['dashboard', 'user', 'list', '--merchant', shopA.merchantId, '--json'], server.env);
    const owners = JSON.parse(list.stdout).people.filter((person: { role: string }) => person.role === 'owner');
    assert.equal(owners.length, 1);
  });
});
