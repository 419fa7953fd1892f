/**
 * What someone signed in to a merchant's dashboard may do (docs/dashboard.md): `owner` everything, people and keys
 * included; `admin` money actions too (refunds, payouts, ...); `viewer` reads only. The dashboard's screens say the
 * least role they need, and the server checks it on every request.
 */
export const ROLES = ['owner', 'admin', 'viewer'] as const;
export type Role = (typeof ROLES)[number];

const RANK: Record<Role, number> = { viewer: 0, admin: 1, owner: 2 };

/** Whether `role` may do what needs at least `needed`. */
export function roleAllows(role: Role, needed: Role): boolean {
  return RANK[role] >= RANK[needed];
}

export const isRole = (text: string): text is Role => (ROLES as readonly string[]).includes(text);
