import countries from 'i18n-iso-countries';
import { AppError, invalid, PLATFORM_ERRORS } from '../platform/errors.js';

/**
 * The rules of operation 2 that a schema cannot say: a real calendar date in the past (on the merchant's
 * business date), a country code that exists (ISO 3166 alpha-3, from a maintained list), a name given.
 */
export function checkDateOfBirth(text: string, today: string, field: string): void {
  const [year, month, day] = text.split('-').map(Number) as [number, number, number];
  const date = new Date(Date.UTC(year, month - 1, day));
  if (date.getUTCFullYear() !== year || date.getUTCMonth() !== month - 1 || date.getUTCDate() !== day || year < 1900) {
    throw invalid(field, 'is not a real calendar date (YYYY-MM-DD, from 1900)');
  }
  if (text >= today) throw invalid(field, 'must be in the past');
}

/** The code in upper case, when it names a country. */
export function readCountry(text: string, field: string): string {
  const code = text.toUpperCase();
  if (countries.alpha3ToAlpha2(code) === undefined) throw invalid(field, 'is not an ISO 3166 alpha-3 country code');
  return code;
}

export function checkNamed(firstName: string | null, lastName: string | null, field: string): void {
  if (!firstName?.trim() && !lastName?.trim())
    throw new AppError(
      PLATFORM_ERRORS.validationFailed,
      `${field}.first_name or ${field}.last_name is required: give at least one.`,
    );
}

export function checkNotBlank(text: string, field: string): void {
  if (!text.trim()) throw invalid(field, 'must not be blank');
}
