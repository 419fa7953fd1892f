import assert from 'node:assert/strict';
import { PaygateError } from '@paygate/client';

/** The PaygateError a call was refused with; fails the test when the call was not refused. */
export async function refusal(promise: Promise<unknown>): Promise<PaygateError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof PaygateError) return error;
    throw error;
  }
  assert.fail('expected the call to be refused');
}

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
