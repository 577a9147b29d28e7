/**
 * Every error code the sandbox answers with, and the HTTP status and default message of each. The codes,
 * statuses and messages are the ones Linkdesk's API uses for the same failures, so that the control API
 * reads the same whether Linkdesk mounts it or the sandbox serves it alone.
 */
export const SANDBOX_ERROR_CODES = {
  missing_parameter: { status: 400, message: 'A required parameter is missing.' },
  invalid_parameter: { status: 400, message: 'A parameter has an invalid value.' },
  invalid_body: { status: 400, message: 'The request body is not valid JSON or form data.' },
  forbidden_host: { status: 403, message: 'Requests must address this computer by a loopback name.' },
  forbidden_origin: { status: 403, message: 'Requests from other web origins are not accepted.' },
  not_found: { status: 404, message: 'No such path.' },
  qr_not_found: { status: 404, message: 'That QR code is unknown or has expired.' },
  account_not_found: { status: 404, message: 'No sandbox account with that phone number exists.' },
  message_not_found: {
    status: 404,
    message: 'No stored message with that message_id exists for this instance.',
  },
  channel_not_found: { status: 404, message: 'The network knows no channel with that id or invite code.' },
  not_channel_owner: { status: 403, message: "Only the channel's owner may post to it." },
  not_business: {
    status: 422,
    message: 'Labels are for WhatsApp Business accounts: this account is a personal one.',
  },
  conflict: { status: 409, message: 'The request conflicts with the current state.' },
  payload_too_large: { status: 413, message: 'The request or its content is larger than the allowed limit.' },
  unsupported_media_type: { status: 415, message: 'Send JSON or form data.' },
  recipient_not_found: { status: 422, message: 'That number is not on the network.' },
  quoted_not_found: { status: 422, message: 'The message to quote is not among the stored messages.' },
  no_recipients: {
    status: 422,
    message: 'The status update has nobody to go to: name numbers, or have contacts first.',
  },
  action_not_allowed: { status: 422, message: 'The network does not allow that on this message.' },
  internal_error: { status: 500, message: 'An unexpected error occurred; it has been logged.' },
  upstream_failed: { status: 502, message: 'The network refused the operation.' },
  unavailable: { status: 503, message: 'The service is shutting down or not ready.' },
} as const satisfies Record<string, { status: number; message: string }>

export type SandboxErrorCode = keyof typeof SANDBOX_ERROR_CODES

/** The sandbox's one error type: a code from the table and a sentence a person can act on. */
export class SandboxError extends Error {
  readonly code: SandboxErrorCode

  constructor(code: SandboxErrorCode, message?: string, options: { cause?: unknown } = {}) {
    super(message ?? SANDBOX_ERROR_CODES[code].message, { cause: options.cause })
    this.name = 'SandboxError'
    this.code = code
  }

  get status(): number {
    return SANDBOX_ERROR_CODES[this.code].status
  }
}

/** The error envelope every control API answer uses (Linkdesk's own). */
export interface SandboxErrorEnvelope {
  status: 'error'
  code: SandboxErrorCode
  message: string
}

export function toEnvelope(error: SandboxError): SandboxErrorEnvelope {
  return { status: 'error', code: error.code, message: error.message }
}
