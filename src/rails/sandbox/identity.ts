import type { IdentityAnswer, IdentityRequest, IdentityVerifier } from '../identity.js';

/** The last names that steer the sandbox's identity check (docs/sandbox.md); any other is approved. */
/** Why the sandbox rejects, unless told otherwise. */
export const SANDBOX_REJECTION = 'The identity document could not be verified.';

export const IDENTITY_MAGIC_NAMES = { review: 'Review', reject: 'Reject' } as const;

/**
 * The sandbox's identity check: decided by the last name alone, so it gives the same answer however often it is
 * asked (which is what recovery relies on). `Review` stays pending until the merchant settles it through
 * `/svc/sandbox/api/v1/users/{user_id}/approve` or `/reject`.
 */
export class SandboxIdentityVerifier implements IdentityVerifier {
  readonly name = 'sandbox-identity';

  async verify(request: IdentityRequest): Promise<IdentityAnswer> {
    const lastName = request.lastName?.trim();
    if (lastName === IDENTITY_MAGIC_NAMES.review) return { status: 'pending' };
    if (lastName === IDENTITY_MAGIC_NAMES.reject) return { status: 'rejected', reason: SANDBOX_REJECTION };
    return { status: 'approved' };
  }
}
