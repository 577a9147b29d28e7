/** An API error as the UI shows it: the server's code and its sentence, or a network failure in words. */
export class ApiError extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly httpStatus: number,
    readonly details?: Record<string, unknown>,
  ) {
    super(message)
    this.name = 'ApiError'
  }

  /** The UI credential is no longer accepted, e.g. the server restarted and made a new one. */
  get isUnauthorized(): boolean {
    return this.code === 'unauthorized'
  }
}

/** Any thrown value as words a person can act on. */
export function describeError(error: unknown): string {
  if (error instanceof ApiError) return error.message
  if (error instanceof Error) return error.message
  return 'Something went wrong.'
}
