import { createHash, randomBytes, timingSafeEqual } from 'node:crypto'
import { AppError } from '../errors'
import type { RecordsOf, SettingsStore, TokenRecord } from '../store/settings-store'

/** A token as shown to the operator: never its value, except once right after creation. */
export interface TokenInfo {
  id: string
  label: string
  createdAt: number
  source: TokenRecord['source']
}

function hashToken(token: string): Buffer {
  return createHash('sha256').update(token, 'utf8').digest()
}

function toInfo(record: TokenRecord): TokenInfo {
  return { id: record.id, label: record.label, createdAt: record.createdAt, source: record.source }
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
  create(label: string): Promise<{ token: string; info: TokenInfo }> {
    const token = `ldk_${randomBytes(24).toString('base64url')}`
    const record: TokenRecord = {
      id: `tok_${randomBytes(6).toString('hex')}`,
      label,
      hash: hashToken(token).toString('hex'),
      createdAt: this.now(),
      source: 'ui',
    }
    return this.store.change('tokens', () => ({ put: [record], result: { token, info: toInfo(record) } }))
  }

  relabel(id: string, label: string): Promise<TokenInfo> {
    return this.store.change('tokens', (tokens) => {
      const record = tokens[id]
      if (!record) throw new AppError('token_not_found')
      const updated = { ...record, label }
      return { put: [updated], result: toInfo(updated) }
    })
  }

  revoke(id: string): Promise<void> {
    return this.store.change('tokens', (tokens) => {
      if (!tokens[id]) throw new AppError('token_not_found')
      return { remove: [id], result: undefined }
    })
  }

  list(): TokenInfo[] {
    return Object.values(this.store.all('tokens'))
      .sort((a, b) => a.createdAt - b.createdAt)
      .map(toInfo)
  }

  /** The token's record if it is known; every stored hash is compared, in constant time. */
  find(token: string): TokenInfo | undefined {
    const found = findIn(this.store.all('tokens'), token)
    return found && toInfo(found)
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
