import type { AppError } from '../errors'
import type { EventData, EventName } from '../contract/event-catalogue'
import type { EventSink } from '../contract/events'
import type { Logger } from '../logger'
import type { InstanceCause, InstanceState, InstanceStatus } from '../contract/instance-state'
import type { WaAccount } from '../contract/network'

/**
 * Holds one instance's true status and reports it: every change goes to the status listeners, a state or cause
 * change to the log, a state change to the `connection.update` event. It decides nothing: the runtime tells it
 * what the state is now.
 */
export class StatusReporter {
  private status: InstanceStatus
  private readonly listeners = new Set<(status: InstanceStatus) => void>()

  constructor(
    private readonly options: { instanceId: string; logger: Logger; events: EventSink; now: () => number },
    initial: InstanceStatus,
  ) {
    this.status = initial
  }

  /** The status itself, for reading only; the listeners and `snapshot` get copies. */
  get current(): Readonly<InstanceStatus> {
    return this.status
  }

  /** A copy of the current status. */
  snapshot(): InstanceStatus {
    return structuredClone(this.status)
  }

  /** Calls `listener` after every status change; returns the unsubscribe function. */
  onChange(listener: (status: InstanceStatus) => void): () => void {
    this.listeners.add(listener)
    return () => void this.listeners.delete(listener)
  }

  /**
   * Moves to `state` for `cause` with the fields of `patch`, and reports it; `since` moves only when the state
   * or the cause changed, and a retry time is shown only while disconnected.
   */
  set(state: InstanceState, cause: InstanceCause, patch: Partial<InstanceStatus> = {}): void {
    const previous = this.status.state
    const changed = previous !== state || this.status.cause !== cause
    this.status = {
      ...this.status,
      ...patch,
      state,
      cause,
      since: changed ? this.options.now() : this.status.since,
    }
    if (state !== 'disconnected') this.status.nextRetryAt = null
    if (changed) {
      this.options.logger.info({ state, previous, cause }, 'state changed')
      if (previous !== state)
        this.emit('connection.update', { state, previous_state: previous, reason: cause })
    }
    this.notify()
  }

  /** Changes fields without reporting them: the next report carries them. */
  amend(patch: Partial<InstanceStatus>): void {
    Object.assign(this.status, patch)
  }

  /** Shows `account` (a new name, number or avatar) and reports it as `instance.updated`. */
  showAccount(account: InstanceStatus['account']): void {
    this.status.account = account
    this.notify()
    this.emit('instance.updated', { changed: ['account'] })
  }

  /** Calls every listener with a copy of the status; a failing listener is logged and the others still run. */
  notify(): void {
    const status = this.snapshot()
    for (const listener of this.listeners) {
      try {
        listener(status)
      } catch (error) {
        this.options.logger.error({ err: error }, 'status listener failed')
      }
    }
  }

  /** Emits an event of the instance; a failure is logged, never thrown into the state machine. */
  emit<E extends EventName>(event: E, data: EventData<E>): void {
    try {
      this.options.events.emit(this.options.instanceId, event, data)
    } catch (error) {
      this.options.logger.error({ err: error, event }, 'emitting an event failed')
    }
  }

  /** Resolves with the first defined result of `check`, now or at a later status; rejects after the timeout. */
  waitFor<T>(
    check: (status: InstanceStatus) => T | undefined,
    timeout: { ms: number; error: () => AppError },
  ): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      let unsubscribe: () => void = () => undefined
      const timer = setTimeout(() => {
        unsubscribe()
        reject(timeout.error())
      }, timeout.ms)
      const test = (status: InstanceStatus) => {
        try {
          const result = check(status)
          if (result === undefined) return
          clearTimeout(timer)
          unsubscribe()
          resolve(result)
        } catch (error) {
          clearTimeout(timer)
          unsubscribe()
          reject(error)
        }
      }
      unsubscribe = this.onChange(test)
      test(this.snapshot())
    })
  }
}

/** The account as the status shows it: the network's account with its avatar; none before a link. */
export function withAvatar(account: WaAccount | undefined, avatar: string): InstanceStatus['account'] {
  return account ? { ...account, avatar } : null
}
