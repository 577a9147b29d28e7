import { randomBytes } from 'node:crypto'
import type { Principal } from '../contract/principal'
import { AppError } from '../errors'
import { type InstanceRecord, reachOf, type SettingsStore, tokensOf } from '../store/settings-store'

/** A new unguessable instance id: 24 upper-case hex characters (96 random bits). */
export function newInstanceId(): string {
  return randomBytes(12).toString('hex').toUpperCase()
}

/** A new webhook signing secret; there is never a default one. */
export function newWebhookSecret(): string {
  return `whsec_${randomBytes(24).toString('base64url')}`
}

/** Whether a caller may see a record its owner token made: the token itself, or the operator (the window). */
export function ownedBy(record: { ownerTokenId: string | null }, principal: Principal): boolean {
  if (principal.kind === 'operator') return true
  return principal.kind === 'token' && record.ownerTokenId === principal.tokenId
}

/**
 * Whether a caller may use an instance: the window, a token reaching every instance, or a token with a chosen
 * reach that the instance names (the one that created it, and those the operator chose).
 */
export function mayUse(record: InstanceRecord, principal: Principal): boolean {
  if (principal.kind === 'operator') return true
  if (principal.kind !== 'token') return false
  return principal.reach === 'all' || tokensOf(record).includes(principal.tokenId)
}

/** The instances that exist, who created them and which tokens may use them, kept in the settings file. */
export class InstanceRegistry {
  constructor(
    private readonly store: SettingsStore,
    private readonly now: () => number = Date.now,
  ) {}

  /**
   * A new instance: one a token creates is that token's to use whatever its reach; one the window creates is
   * for the tokens reaching all instances and the chosen `tokens`.
   */
  create(principal: Principal, name?: string, tokens: readonly string[] = []): Promise<InstanceRecord> {
    const owner = principal.kind === 'token' ? principal.tokenId : null
    const record: InstanceRecord = {
      ...(name ? { name } : {}),
      id: newInstanceId(),
      ownerTokenId: owner,
      tokens: [...new Set(owner ? [owner, ...tokens] : tokens)],
      createdAt: this.now(),
      linked: false,
      webhook: { url: null, enable: false, secret: newWebhookSecret() },
    }
    return this.store.change('instances', () => ({ put: [record], result: record }))
  }

  /**
   * The instance this caller may touch: its record, or instance_not_found for an unknown id and for another
   * token's instance alike, so an id never reveals that it exists. The API's one ownership check.
   */
  accessible(id: string, principal: Principal): InstanceRecord {
    const record = this.find(id)
    if (!record || !mayUse(record, principal)) throw new AppError('instance_not_found')
    return record
  }

  /** Whether the token (by id, as it is now) reaches the instance: what its global webhooks hear. */
  reaches(tokenId: string, instanceId: string): boolean {
    const token = this.store.all('tokens')[tokenId]
    const record = this.find(instanceId)
    if (!token || !record) return false
    return reachOf(token) === 'all' || tokensOf(record).includes(tokenId)
  }

  /** The ids of the instances that name this token (what a chosen reach reaches). */
  chosenFor(tokenId: string): string[] {
    return this.list({ kind: 'operator' })
      .filter((record) => tokensOf(record).includes(tokenId))
      .map((record) => record.id)
  }

  /** Sets the chosen-reach tokens that may use an instance. */
  setTokens(id: string, tokens: readonly string[]): Promise<InstanceRecord> {
    return this.update(id, (record) => ({ ...record, tokens: [...new Set(tokens)] }))
  }

  /** Makes exactly these instances name the token (the others no longer do; an id gone meanwhile is skipped). */
  setChosenFor(tokenId: string, instanceIds: readonly string[]): Promise<void> {
    return this.store.change('instances', (instances) => {
      const put: InstanceRecord[] = []
      for (const record of Object.values(instances)) {
        const named = tokensOf(record)
        const wanted = instanceIds.includes(record.id)
        if (wanted === named.includes(tokenId)) continue
        put.push({ ...record, tokens: wanted ? [...named, tokenId] : named.filter((id) => id !== tokenId) })
      }
      return { put, result: undefined }
    })
  }

  find(id: string): InstanceRecord | undefined {
    return this.store.all('instances')[id]
  }

  list(principal: Principal): InstanceRecord[] {
    return Object.values(this.store.all('instances'))
      .filter((record) => mayUse(record, principal))
      .sort((a, b) => a.createdAt - b.createdAt)
  }

  all(): InstanceRecord[] {
    return Object.values(this.store.all('instances'))
  }

  /**
   * Changes an instance's record (from the record as the last change left it); instance_not_found if it is
   * gone. A change that gives back the same record writes nothing.
   */
  update(id: string, change: (record: InstanceRecord) => InstanceRecord): Promise<InstanceRecord> {
    return this.store.change('instances', (instances) => {
      const record = instances[id]
      if (!record) throw new AppError('instance_not_found')
      const updated = change(record)
      return updated === record ? { result: record } : { put: [updated], result: updated, of: id }
    })
  }

  /** Records whether the instance has credentials; nothing if it is gone or already so. */
  async setLinked(id: string, linked: boolean): Promise<void> {
    await this.store.change('instances', (instances) => {
      const record = instances[id]
      return !record || record.linked === linked
        ? { result: undefined }
        : { put: [{ ...record, linked }], result: undefined, of: id }
    })
  }

  /**
   * Keeps why the network stopped the instance (a start then leaves it stopped), or clears it (null); nothing
   * if it is gone or already so.
   */
  async setStopped(id: string, stopped: InstanceRecord['stopped'] | null): Promise<void> {
    await this.store.change('instances', (instances) => {
      const record = instances[id]
      if (!record || (!stopped && !record.stopped)) return { result: undefined }
      const { stopped: _old, ...rest } = record
      return { put: [stopped ? { ...rest, stopped } : rest], result: undefined, of: id }
    })
  }

  /** Removes an instance's record for good (delete_instance: nothing replaces it). */
  remove(id: string): Promise<void> {
    return this.store.change('instances', (instances) => {
      if (!instances[id]) throw new AppError('instance_not_found')
      return { remove: [id], result: undefined }
    })
  }

  /** Replaces an instance by a fresh one with a new id and nothing of the old one but its owner. */
  replace(id: string): Promise<InstanceRecord> {
    return this.store.change('instances', (instances) => {
      const old = instances[id]
      if (!old) throw new AppError('instance_not_found')
      const { stopped: _stopped, ...kept } = old
      const record: InstanceRecord = {
        ...kept,
        id: newInstanceId(),
        createdAt: this.now(),
        linked: false,
        webhook: { url: null, enable: false, secret: newWebhookSecret() },
      }
      return { remove: [id], put: [record], result: record, of: id }
    })
  }
}
