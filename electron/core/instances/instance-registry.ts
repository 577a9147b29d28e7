import { randomBytes } from 'node:crypto'
import type { Principal } from '../contract/principal'
import { AppError } from '../errors'
import type { InstanceRecord, SettingsStore } from '../store/settings-store'

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

/** The instances that exist and who owns them, kept in the settings file. */
export class InstanceRegistry {
  constructor(
    private readonly store: SettingsStore,
    private readonly now: () => number = Date.now,
  ) {}

  create(principal: Principal, name?: string): Promise<InstanceRecord> {
    const record: InstanceRecord = {
      ...(name ? { name } : {}),
      id: newInstanceId(),
      ownerTokenId: principal.kind === 'token' ? principal.tokenId : null,
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
    if (!record || !ownedBy(record, principal)) throw new AppError('instance_not_found')
    return record
  }

  find(id: string): InstanceRecord | undefined {
    return this.store.all('instances')[id]
  }

  list(principal: Principal): InstanceRecord[] {
    return Object.values(this.store.all('instances'))
      .filter((record) => ownedBy(record, principal))
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
      return updated === record ? { result: record } : { put: [updated], result: updated }
    })
  }

  /** Records whether the instance has credentials; nothing if it is gone or already so. */
  async setLinked(id: string, linked: boolean): Promise<void> {
    await this.store.change('instances', (instances) => {
      const record = instances[id]
      return !record || record.linked === linked
        ? { result: undefined }
        : { put: [{ ...record, linked }], result: undefined }
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
      return { put: [stopped ? { ...rest, stopped } : rest], result: undefined }
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
      return { remove: [id], put: [record], result: record }
    })
  }
}
