import { AppError } from '../platform/errors.js';
import { RAIL_ERRORS } from './errors.js';

/**
 * The identity check, as the platform sees it: a person's identity document and name, sent under our own reference
 * (one per verification), answered approved, rejected (with a reason) or pending (the provider reviews it and
 * answers later). Asked again about the same reference, a provider gives the answer it stands by: that is how a
 * verification whose answer was lost in a crash is recovered.
 */
export interface IdentityVerifier {
  readonly name: string;
  verify(request: IdentityRequest): Promise<IdentityAnswer>;
}

export interface IdentityRequest {
  reference: string;
  merchantId: string;
  firstName: string | null;
  lastName: string | null;
  dateOfBirth: string;
  documentType: string;
  documentNumber: string;
  issuingCountry: string;
}

export type IdentityAnswer = { status: 'approved' } | { status: 'rejected'; reason: string } | { status: 'pending' };

export function identityOf(rails: { identity: IdentityVerifier | undefined }): IdentityVerifier {
  if (!rails.identity) throw new AppError(RAIL_ERRORS.identityUnavailable);
  return rails.identity;
}
