import { randomBytes } from 'node:crypto'
import { boundedCache, CACHE_LIMITS } from '../bounded-cache'
import { type Principal, sameSecret } from '../contract/principal'
import { AppError } from '../errors'
import type { TokenService } from '../tokens/token-service'

/**
 * The window's credential: made anew at each launch, handed to the Electron window by the preload and to a
 * browser through a one-time login code, and never stored.
 */
export class UiCredential {
  readonly value = `ui_${randomBytes(24).toString('base64url')}`
  /** Codes handed out and not yet exchanged; one past its age is gone. */
  private readonly codes = boundedCache<string, true>(CACHE_LIMITS.loginCodes)

  matches(candidate: string): boolean {
    return sameSecret(candidate, this.value)
  }

  /** A code that a browser exchanges once for the credential (the headless login URL carries it). */
  createLoginCode(): string {
    const code = randomBytes(18).toString('base64url')
    this.codes.set(code, true)
    return code
  }

  exchange(code: string): string {
    // has() answers false for a code past its age; delete() alone would not tell the two apart.
    const known = this.codes.has(code)
    this.codes.delete(code)
    if (!known) {
      throw new AppError(
        'unauthorized',
        'This login link was already used or has expired: restart the server for a new one.',
      )
    }
    return this.value
  }
}

/** The cookie that carries a browser window's session (HttpOnly, SameSite=Strict). */
export const SESSION_COOKIE = 'linkdesk_session'

/** The window session's secret from the request's cookies, if it carries one. */
export function presentedSession(headers: Record<string, unknown>): string | undefined {
  const cookie = headers.cookie
  if (typeof cookie !== 'string') return undefined
  for (const part of cookie.split(';')) {
    const [name, ...value] = part.trim().split('=')
    if (name === SESSION_COOKIE && value.length > 0) return value.join('=')
  }
  return undefined
}

/** The access token from `Authorization: Bearer`, the query string or the body; the body wins. */
export function presentedToken(
  headers: Record<string, unknown>,
  raw: Record<string, unknown>,
): string | undefined {
  const fromParams = raw.access_token
  if (typeof fromParams === 'string' && fromParams !== '') return fromParams
  const header = headers.authorization
  if (typeof header === 'string') {
    const match = /^Bearer\s+(\S+)\s*$/i.exec(header)
    if (match?.[1]) return match[1]
  }
  return undefined
}

/** Resolves who is calling, refusing unknown credentials with 401 and too many requests with 429. */
export class Authenticator {
  private readonly windows = new Map<string, { startedAt: number; count: number }>()

  constructor(
    private readonly tokens: TokenService,
    private readonly ui: UiCredential,
    private readonly requestsPerMinute: number,
    private readonly now: () => number = Date.now,
  ) {}

  /**
   * The caller: by the access token presented (the UI credential is the window's), else by the window session
   * its cookie names; a session that ended or was logged out is refused like an unknown token.
   */
  authenticate(token: string | undefined, sessionSecret?: string): Principal {
    if (token === undefined) {
      if (sessionSecret !== undefined) {
        if (this.tokens.findSession(sessionSecret)) return { kind: 'operator' }
        throw new AppError('unauthorized', 'This login has ended or was logged out: log in again.')
      }
      throw new AppError('unauthorized', 'The access_token parameter is missing.')
    }
    if (this.ui.matches(token)) return { kind: 'operator' }
    const info = this.tokens.find(token)
    if (!info)
      throw new AppError('unauthorized', 'The access_token is not known: check it or create a new one.')
    const principal: Principal = { kind: 'token', tokenId: info.id, reach: info.reach, scopes: info.scopes }
    this.countRequest(info.id)
    return principal
  }

  private countRequest(key: string): void {
    const now = this.now()
    const window = this.windows.get(key)
    if (!window || now - window.startedAt >= 60_000) {
      this.windows.set(key, { startedAt: now, count: 1 })
      return
    }
    window.count += 1
    if (window.count > this.requestsPerMinute) {
      const retryAfter = Math.max(1, Math.ceil((window.startedAt + 60_000 - now) / 1000))
      throw new AppError(
        'rate_limited',
        `More than ${this.requestsPerMinute} requests in a minute with this token.`,
        {
          retryAfter,
        },
      )
    }
  }
}
