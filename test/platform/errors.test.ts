import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ERRORS } from '../../src/modules.js';

describe('the closed list of error codes', () => {
  test("joins every area's errors with no code given twice", () => {
    const codes = Object.values(ERRORS).map((error) => error.code);
    assert.deepEqual(
      codes.filter((code, index) => codes.indexOf(code) !== index),
      [],
    );
    // Six digits, but for the codes the interface gives otherwise: two text codes, and 30014 (five digits) for a user's
    // phone.
    for (const error of Object.values(ERRORS))
      assert.match(error.code, /^(\d{6}|E000002|EO100102|30014)$/, error.message);
  });
});
