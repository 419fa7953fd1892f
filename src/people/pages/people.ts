import type { Context } from '../../context/context.js';
import { ROLES, roleAllows } from '../../platform/roles.js';
import { formTokenField } from '../../web/dashboard/frame.js';
import type { ScreenAnswer, SignedIn, SignedInScreen } from '../../web/dashboard/screen.js';
import { type Html, html } from '../../web/html.js';
import { addPerson, changeRole, listPeople, MIN_PASSWORD_LENGTH, type Person, removePerson } from '../people.js';
import { actingOf } from '../sessions.js';

export const PEOPLE_PATH = '/dashboard/people';

async function peoplePage(ctx: Context, signedIn: SignedIn, notice?: Html): Promise<ScreenAnswer> {
  const people = await listPeople(ctx, signedIn.merchantId);
  const manages = roleAllows(signedIn.role, 'owner');
  return {
    status: 200,
    page: {
      title: 'People',
      body: html`<h1>People</h1>
${notice}
<table class="list" data-testid="people">
<thead><tr><th>Email address</th><th>Role</th><th>Added</th>${manages && html`<th>Change</th>`}</tr></thead>
<tbody>
${people.map((person) => personRow(person, signedIn, manages))}
</tbody>
</table>
${
  manages &&
  html`<section class="card">
<h2>Add someone</h2>
<form method="post" action="${PEOPLE_PATH}">
${formTokenField(signedIn.formToken)}
<label for="new-email">Email address</label>
<input id="new-email" name="email" type="email" required>
<label for="new-role">Role</label>
<select id="new-role" name="role">${ROLES.map((role) => html`<option value="${role}"${role === 'viewer' ? html` selected` : ''}>${role}</option>`)}</select>
<label for="new-password">Password (at least ${MIN_PASSWORD_LENGTH} characters; leave empty to have one made and shown once)</label>
<input id="new-password" name="password" type="password" autocomplete="new-password">
<button type="submit">Add</button>
</form>
<p class="muted">An owner manages people and keys, an admin takes money actions too, a viewer only reads.</p>
</section>`
}`,
    },
  };
}

function personRow(person: Person, signedIn: SignedIn, manages: boolean): Html {
  const created = new Date(person.createdAt).toISOString().slice(0, 16).replace('T', ' ');
  return html`<tr data-testid="person">
<td data-label="Email address">${person.email}${person.id === signedIn.personId && html` <span class="muted">(you)</span>`}</td>
<td data-label="Role" data-testid="role">${person.role}</td>
<td data-label="Added">${created} UTC</td>
${
  manages &&
  html`<td data-label="Change">
<form method="post" action="${PEOPLE_PATH}/${person.id}/role">
${formTokenField(signedIn.formToken)}
<label class="muted" for="role-${person.id}">Role of ${person.email}</label>
<select id="role-${person.id}" name="role">${ROLES.map((role) => html`<option value="${role}"${role === person.role ? html` selected` : ''}>${role}</option>`)}</select>
<button type="submit">Change role</button>
</form>
<form method="post" action="${PEOPLE_PATH}/${person.id}/remove">
${formTokenField(signedIn.formToken)}
<button type="submit" class="danger" aria-label="Remove ${person.email}">Remove</button>
</form>
</td>`
}
</tr>`;
}

/** The people of the merchant's dashboard: everyone sees who they are; an owner adds, changes and removes them. */
export const PEOPLE_SCREENS: readonly SignedInScreen[] = [
  {
    method: 'GET',
    url: PEOPLE_PATH,
    access: 'viewer',
    menu: 'People',
    handle: (ctx, request) => peoplePage(ctx, request.signedIn),
  },
  {
    method: 'POST',
    url: PEOPLE_PATH,
    access: 'owner',
    async handle(ctx, request) {
      const { signedIn, form } = request;
      const { person, password } = await addPerson(
        ctx,
        {
          merchantId: signedIn.merchantId,
          email: form.email ?? '',
          role: form.role ?? '',
          ...(form.password && { password: form.password }),
        },
        actingOf(signedIn, request.address),
      );
      // The generated password is shown here once, never stored: the page answers the form instead of redirecting.
      const notice = html`<div class="notice done" role="status" data-testid="added">Added ${person.email} as ${person.role}.${
        password !== undefined &&
        html` Their password, shown this once: <span class="secret" data-testid="password">${password}</span>`
      }</div>`;
      return peoplePage(ctx, signedIn, notice);
    },
  },
  {
    method: 'POST',
    url: `${PEOPLE_PATH}/:id/role`,
    access: 'owner',
    async handle(ctx, request) {
      await changeRole(
        ctx,
        request.signedIn.merchantId,
        request.params.id!,
        request.form.role ?? '',
        actingOf(request.signedIn, request.address),
      );
      return { redirect: PEOPLE_PATH };
    },
  },
  {
    method: 'POST',
    url: `${PEOPLE_PATH}/:id/remove`,
    access: 'owner',
    async handle(ctx, request) {
      await removePerson(
        ctx,
        request.signedIn.merchantId,
        request.params.id!,
        actingOf(request.signedIn, request.address),
      );
      return { redirect: PEOPLE_PATH };
    },
  },
];
