import { createHash, randomBytes, timingSafeEqual } from 'node:crypto'
import { AppError } from '../errors'
import {
  type Reach,
  reachOf,
  type RecordsOf,
  type Scope,
  scopesOf,
  type SettingsStore,
  type TokenRecord,
} from '../store/settings-store'

/** A token as shown to the operator: never its value, except once right after creation. */
export interface TokenInfo {
  id: string
  label: string
  createdAt: number
  source: 'env' | 'ui'
  /** all: every instance; chosen: the instances chosen for it and those it created. */
  reach: Reach
  scopes: Scope[]
}

/** What the operator gives a token: its reach and scopes (a new one without them: chosen, every scope). */
export interface TokenAccess {
  reach?: Reach
  scopes?: Scope[]
}

/** A window session as kept: its id, and when it ends. */
export interface SessionInfo {
  id: string
  expiresAt: number
}

function hashToken(token: string): Buffer {
  return createHash('sha256').update(token, 'utf8').digest()
}

function toInfo(record: TokenRecord): TokenInfo {
  return {
    id: record.id,
    label: record.label,
    createdAt: record.createdAt,
    source: record.source === 'env' ? 'env' : 'ui',
    reach: reachOf(record),
    scopes: scopesOf(record),
  }
}

function refuseNoScope(scopes: readonly Scope[] | undefined): void {
  if (scopes !== undefined && scopes.length === 0) {
    throw new AppError('invalid_parameter', 'scopes: give at least one of read, send, manage, admin.', {
      details: { parameter: 'scopes' },
    })
  }
}

/** Access tokens: stored hashed, compared in constant time, created, labelled and revoked by the operator. */
export class TokenService {
  constructor(
    private readonly store: SettingsStore,
    private readonly now: () => number = Date.now,
  ) {}

  /** Registers a token given from outside (LINKDESK_ACCESS_TOKEN); doing it again changes nothing. */
  register(token: string, label: string): Promise<TokenInfo> {
    return this.store.change('tokens', (tokens) => {
      const existing = findIn(tokens, token)
      if (existing) return { result: toInfo(existing) }
      const hash = hashToken(token).toString('hex')
      const record: TokenRecord = {
        id: `tok_${hash.slice(0, 12)}`,
        label,
        hash,
        createdAt: this.now(),
        source: 'env',
      }
      return { put: [record], result: toInfo(record) }
    })
  }

  /** Creates a new random token; its value is returned this once and never stored. */
  create(label: string, access: TokenAccess = {}): Promise<{ token: string; info: TokenInfo }> {
    refuseNoScope(access.scopes)
    const token = `ldk_${randomBytes(24).toString('base64url')}`
    const record: TokenRecord = {
      id: `tok_${randomBytes(6).toString('hex')}`,
      label,
      hash: hashToken(token).toString('hex'),
      createdAt: this.now(),
      source: 'ui',
      reach: access.reach ?? 'chosen',
      ...(access.scopes && { scopes: [...new Set(access.scopes)] }),
    }
    return this.store.change('tokens', () => ({ put: [record], result: { token, info: toInfo(record) } }))
  }

  relabel(id: string, label: string): Promise<TokenInfo> {
    return this.change(id, (record) => ({ ...record, label }))
  }

  /** Sets a token's reach and scopes (those given; the others stay). */
  setAccess(id: string, access: TokenAccess): Promise<TokenInfo> {
    refuseNoScope(access.scopes)
    return this.change(id, (record) => ({
      ...record,
      reach: access.reach ?? reachOf(record),
      scopes: access.scopes ? [...new Set(access.scopes)] : scopesOf(record),
    }))
  }

  revoke(id: string): Promise<void> {
    return this.store.change('tokens', (tokens) => {
      if (!tokens[id] || tokens[id].source === 'session') throw new AppError('token_not_found')
      return { remove: [id], result: undefined }
    })
  }

  list(): TokenInfo[] {
    return this.tokenRecords()
      .sort((a, b) => a.createdAt - b.createdAt)
      .map(toInfo)
  }

  /** A token by id, as shown to the operator. */
  info(id: string): TokenInfo | undefined {
    const record = this.store.all('tokens')[id]
    return record && record.source !== 'session' ? toInfo(record) : undefined
  }

  /** The token's record if it is known (never a session's); every stored hash is compared, in constant time. */
  find(token: string): TokenInfo | undefined {
    const found = findIn(this.store.all('tokens'), token)
    return found && found.source !== 'session' ? toInfo(found) : undefined
  }

  /** Opens a window session lasting `lifetimeMs`; its secret is returned this once and only its hash kept. */
  async openSession(lifetimeMs: number): Promise<{ secret: string; session: SessionInfo }> {
    const secret = `lds_${randomBytes(24).toString('base64url')}`
    const now = this.now()
    const record: TokenRecord = {
      id: `ses_${randomBytes(6).toString('hex')}`,
      label: 'window session',
      hash: hashToken(secret).toString('hex'),
      createdAt: now,
      source: 'session',
      expiresAt: now + lifetimeMs,
    }
    // Sessions past their end are dropped whenever one opens, so they never pile up.
    return this.store.change('tokens', (tokens) => ({
      put: [record],
      remove: Object.values(tokens)
        .filter((other) => other.source === 'session' && (other.expiresAt ?? 0) <= now)
        .map((other) => other.id),
      result: { secret, session: { id: record.id, expiresAt: record.expiresAt ?? now } },
    }))
  }

  /** The session this secret opened, while it lasts. */
  findSession(secret: string): SessionInfo | undefined {
    const found = findIn(this.store.all('tokens'), secret)
    if (!found || found.source !== 'session' || (found.expiresAt ?? 0) <= this.now()) return undefined
    return { id: found.id, expiresAt: found.expiresAt ?? 0 }
  }

  /** Ends the session this secret opened (log-out); nothing if it is unknown or already ended. */
  async closeSession(secret: string): Promise<void> {
    const found = findIn(this.store.all('tokens'), secret)
    if (!found || found.source !== 'session') return
    await this.store.change('tokens', () => ({ remove: [found.id], result: undefined }))
  }

  private tokenRecords(): TokenRecord[] {
    return Object.values(this.store.all('tokens')).filter((record) => record.source !== 'session')
  }

  private change(id: string, edit: (record: TokenRecord) => TokenRecord): Promise<TokenInfo> {
    return this.store.change('tokens', (tokens) => {
      const record = tokens[id]
      if (!record || record.source === 'session') throw new AppError('token_not_found')
      const updated = edit(record)
      return { put: [updated], result: toInfo(updated) }
    })
  }
}

/** The record of a presented token among these; every stored hash is compared, in constant time. */
function findIn(tokens: RecordsOf<'tokens'>, token: string): TokenRecord | undefined {
  const presented = hashToken(token)
  let found: TokenRecord | undefined
  for (const record of Object.values(tokens)) {
    const stored = Buffer.from(record.hash, 'hex')
    if (stored.length === presented.length && timingSafeEqual(stored, presented)) found = record
  }
  return found
}
