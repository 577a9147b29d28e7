import { SimDevice } from '../signal/sim-device'
import type { InboxEntry } from '../messages/inbox'
import { LinkedDevice, type DeviceRegistration } from './linked-device'

export const PN_SERVER = 's.whatsapp.net'
export const LID_SERVER = 'lid'

export type Addressing = 'pn' | 'lid'

/** Inbox entries kept per account; the oldest are dropped past this. */
const INBOX_LIMIT = 10_000

/** An account on the simulated network: a phone number, a LID, a primary phone (device 0) and its linked devices. */
export class Account {
  readonly phoneDevice = new SimDevice()
  readonly linkedDevices = new Map<number, LinkedDevice>()
  readonly inbox: InboxEntry[] = []
  private readonly inboxIds = new Set<string>()
  private nextDeviceId = 1

  constructor(
    readonly phone: string,
    readonly lid: string,
    public name: string,
    public autoReply: 'echo' | undefined,
  ) {}

  get pnJid(): string {
    return `${this.phone}@${PN_SERVER}`
  }

  get lidJid(): string {
    return `${this.lid}@${LID_SERVER}`
  }

  jid(addressing: Addressing, device = 0): string {
    const user = addressing === 'lid' ? this.lid : this.phone
    const server = addressing === 'lid' ? LID_SERVER : PN_SERVER
    return device ? `${user}:${device}@${server}` : `${user}@${server}`
  }

  /** Linked devices that have not been removed, in link order. */
  activeDevices(): LinkedDevice[] {
    return [...this.linkedDevices.values()].filter((device) => !device.removed)
  }

  addLinkedDevice(registration: DeviceRegistration): LinkedDevice {
    const device = new LinkedDevice(this.nextDeviceId++, 1, registration)
    this.linkedDevices.set(device.id, device)
    return device
  }

  hasReceived(id: string): boolean {
    return this.inboxIds.has(id)
  }

  record(entry: InboxEntry): void {
    this.inbox.push(entry)
    this.inboxIds.add(entry.id)
    if (this.inbox.length > INBOX_LIMIT) {
      const dropped = this.inbox.shift()
      if (dropped) this.inboxIds.delete(dropped.id)
    }
  }
}
