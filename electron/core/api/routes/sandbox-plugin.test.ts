import assert from 'node:assert/strict'
import { test } from 'node:test'
import { SANDBOX_ERROR_CODES, SandboxError, type SandboxErrorCode } from '@linkdesk/sandbox'
import { ERROR_CODES } from '../../errors'
import { fromSandboxError } from './sandbox-plugin'

test("the sandbox's error codes are the app's, with the app's statuses and default messages", () => {
  for (const code of Object.keys(SANDBOX_ERROR_CODES) as SandboxErrorCode[]) {
    const error = new SandboxError(code)
    const appError = fromSandboxError(error)
    assert.equal(appError.code, code)
    assert.equal(appError.status, error.status, code)
    // The app's own not-found answer points at its docs; the sandbox alone has none.
    if (code !== 'not_found') assert.equal(ERROR_CODES[code].message, error.message, code)
  }
})
