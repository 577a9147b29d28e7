/** Every error code the app can answer with, and the HTTP status and default message of each. */
export const ERROR_CODES = {
  missing_parameter: { status: 400, message: 'A required parameter is missing.' },
  invalid_parameter: { status: 400, message: 'A parameter has an invalid value.' },
  invalid_body: { status: 400, message: 'The request body is not valid JSON or form data.' },
  bad_request: { status: 400, message: 'The HTTP request is malformed.' },
  forbidden_host: { status: 403, message: 'Requests must address this computer by a loopback name.' },
  forbidden_origin: { status: 403, message: 'Requests from other web origins are not accepted.' },
  unauthorized: { status: 401, message: 'The access_token is missing or unknown.' },
  insufficient_scope: {
    status: 403,
    message: 'This access token lacks the scope this operation needs: details.required_scope names it.',
  },
  instance_not_found: {
    status: 404,
    message: 'No instance with that instance_id exists for this access token.',
  },
  not_found: { status: 404, message: 'No such path. See /api/v1/docs for the operations.' },
  qr_not_found: { status: 404, message: 'That QR code is unknown or has expired.' },
  event_not_found: { status: 404, message: 'No event with that event_id exists for this access token.' },
  token_not_found: { status: 404, message: 'No access token with that id exists.' },
  account_not_found: { status: 404, message: 'No sandbox account with that phone number exists.' },
  method_not_allowed: { status: 405, message: 'This path does not accept that HTTP method.' },
  not_linked: {
    status: 409,
    message:
      'The instance is not linked to an account: link it first (scan its QR code or enter a pairing code).',
  },
  already_linked: { status: 409, message: 'The instance is already linked to an account.' },
  not_connected: {
    status: 409,
    message: 'The instance is not connected: wait for it to connect or reconnect it.',
  },
  conflict: { status: 409, message: 'The request conflicts with the current state.' },
  payload_too_large: { status: 413, message: 'The request or its content is larger than the allowed limit.' },
  headers_too_large: {
    status: 431,
    message: 'The URL or headers are too long: send the parameters in a JSON or form body instead.',
  },
  unsupported_media_type: { status: 415, message: 'Send JSON or form data.' },
  recipient_not_found: { status: 422, message: 'That number is not on the network.' },
  participant_not_found: {
    status: 422,
    message: 'A participant is not on the network: details.numbers names each one.',
  },
  media_unavailable: { status: 422, message: 'The media_url cannot be fetched or is not a supported file.' },
  media_expired: {
    status: 410,
    message: 'The file has expired on the network and the phone could not upload it again.',
  },
  invalid_location: { status: 422, message: 'The coordinates are not a place on Earth.' },
  quoted_not_found: { status: 422, message: 'The message to quote is not among the stored messages.' },
  message_not_found: {
    status: 404,
    message: 'No stored message with that message_id exists for this instance.',
  },
  chat_not_found: {
    status: 404,
    message: 'That chat has no stored message: it is not among the chats this account has.',
  },
  pin_limit_reached: {
    status: 409,
    message: 'The network lets an account pin 3 chats: unpin one first (details.pinned lists them).',
  },
  not_business: {
    status: 422,
    message: 'Labels are for WhatsApp Business accounts: this account is a personal one.',
  },
  label_not_found: { status: 404, message: 'This account has no label with that label_id.' },
  group_not_found: { status: 404, message: 'That is not a group this account is in.' },
  not_group_admin: { status: 403, message: "Only the group's admins may do that." },
  group_change_incomplete: {
    status: 409,
    message: 'Only part of the group change was made: details.results says what was applied.',
  },
  community_not_found: { status: 404, message: 'That is not a community this account is in.' },
  group_not_linked: { status: 409, message: 'That group is not linked to this community.' },
  group_already_linked: {
    status: 409,
    message: 'That group is already linked to a community: unlink it there first.',
  },
  channel_not_found: { status: 404, message: 'The network knows no channel with that id or invite code.' },
  not_channel_owner: { status: 403, message: "Only the channel's owner may post to it." },
  post_not_found: { status: 404, message: 'That channel has no post with that post_id.' },
  post_without_media: { status: 404, message: 'That channel post carries no file: it is a text.' },
  webhook_not_found: { status: 404, message: 'No webhook with that webhook_id exists for this token.' },
  sink_not_found: { status: 404, message: 'No sink with that sink_id exists for this token.' },
  call_not_found: { status: 404, message: 'No call with that call_id is ringing on this instance.' },
  no_recipients: {
    status: 422,
    message: 'The status update has nobody to go to: name numbers, or have contacts first.',
  },
  status_not_found: {
    status: 404,
    message:
      'No stored status update of a contact has that status_id: it arrived while ignore_status was on, or never.',
  },
  action_not_allowed: { status: 422, message: 'The network does not allow that on this message.' },
  proxy_unreachable: {
    status: 422,
    message: 'The proxy cannot be reached: check its address and that it runs.',
  },
  rate_limited: { status: 429, message: 'Too many requests: retry after the time in Retry-After.' },
  internal_error: { status: 500, message: 'An unexpected error occurred; it has been logged.' },
  upstream_failed: { status: 502, message: 'The network refused the operation.' },
  upstream_timeout: { status: 504, message: 'The network did not answer in time.' },
  unavailable: { status: 503, message: 'The service is shutting down or not ready.' },
} as const satisfies Record<string, { status: number; message: string }>

export type ErrorCode = keyof typeof ERROR_CODES

/** The app's one error type: a code from the table, a sentence a person can act on, optional details. */
export class AppError extends Error {
  readonly code: ErrorCode
  readonly details?: Record<string, unknown>
  /** Seconds, sent as Retry-After with rate_limited. */
  readonly retryAfter?: number

  constructor(
    code: ErrorCode,
    message?: string,
    options: { details?: Record<string, unknown>; retryAfter?: number; cause?: unknown } = {},
  ) {
    super(message ?? ERROR_CODES[code].message, { cause: options.cause })
    this.name = 'AppError'
    this.code = code
    this.details = options.details
    this.retryAfter = options.retryAfter
  }

  get status(): number {
    return ERROR_CODES[this.code].status
  }
}

export function isAppError(value: unknown): value is AppError {
  return value instanceof AppError
}

/** The error envelope every API answer uses. */
export interface ErrorEnvelope {
  status: 'error'
  code: ErrorCode
  message: string
  details?: Record<string, unknown>
}

export function toEnvelope(error: AppError): ErrorEnvelope {
  const envelope: ErrorEnvelope = { status: 'error', code: error.code, message: error.message }
  if (error.details) envelope.details = error.details
  return envelope
}
