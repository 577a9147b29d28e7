import { EventEmitter } from 'node:events'
import type { SandboxInboxEntry } from './messages/inbox'

export interface SandboxEventMap {
  /** A simulated account's phone received a message (it is now in that account's inbox). */
  message: [{ phone: string; entry: SandboxInboxEntry }]
  /** A linked device sent a receipt (delivered, read, retry, ...) for messages it received. */
  receipt: [{ phone: string; device: number; ids: string[]; type: string; to: string }]
  /** A phone scanned a QR code and a new device was linked. */
  link: [{ phone: string; device: number; jid: string }]
  /** A device waiting for a scan asked to link by a pairing code for the phone number `phone` instead. */
  'pairing-code': [{ phone: string }]
  /** A linked device logged in; `redelivered` are the ids of messages written to it again, unreceipted. */
  login: [{ phone: string; device: number; redelivered: string[] }]
  /**
   * A linked device changed a group (`change` is its query's tag: subject, description, locked, add, …),
   * emitted once the change is made and before the device hears its answer.
   */
  group: [{ group: string; phone: string; change: string }]
  /**
   * A channel changed: created, followed or unfollowed by a linked device (`change`), or posted to (`post`,
   * with the post's server id), emitted once the network keeps the change.
   */
  channel: [
    {
      channel: string
      phone: string
      change: 'create' | 'follow' | 'unfollow' | 'post' | 'react'
      serverId?: number
    },
  ]
  /** A linked device's connection ended. */
  disconnect: [{ phone: string; device: number }]
}

export type SandboxEventName = keyof SandboxEventMap

/** The sandbox's event emitter, with a helper to await the next matching event. */
export class SandboxEvents extends EventEmitter<SandboxEventMap> {
  /** Resolves with the first event that matches; rejects after timeoutMs. */
  waitFor<E extends SandboxEventName>(
    event: E,
    matches: (...args: SandboxEventMap[E]) => boolean = () => true,
    timeoutMs = 10_000,
  ): Promise<SandboxEventMap[E][0]> {
    return new Promise((resolve, reject) => {
      const listener = (...args: SandboxEventMap[E]): void => {
        if (!matches(...args)) return
        cleanup()
        resolve(args[0])
      }
      const timer = setTimeout(() => {
        cleanup()
        reject(new Error(`no sandbox '${event}' event within ${timeoutMs} ms`))
      }, timeoutMs)
      const cleanup = (): void => {
        clearTimeout(timer)
        this.off(event, listener as never)
      }
      this.on(event, listener as never)
    })
  }
}
