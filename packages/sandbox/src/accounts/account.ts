import { SimDevice } from '../signal/sim-device'
import { AppState, type AppStateRecord, newAppStateRecord } from './app-state'
import type { InboxEntry } from '../messages/inbox'
import { defineTable, type SandboxState, type StateTable } from '../state/sandbox-state'
import { StoredList } from '../state/stored-list'
import { LINKED_DEVICES, LinkedDevice, type DeviceRegistration } from './linked-device'
import { DEFAULT_PHONE_BEHAVIOUR, type PhoneBehaviour } from './phone-behaviour'
import { PRIVACY_DEFAULTS } from './privacy'

export const PN_SERVER = 's.whatsapp.net'
export const LID_SERVER = 'lid'

export type Addressing = 'pn' | 'lid'

/** Inbox entries kept per account; the oldest are dropped past this. */
const INBOX_LIMIT = 10_000

/** What the network keeps of an account itself; its devices and inbox are kept beside it. */
export interface AccountRecord {
  phone: string
  lid: string
  name: string
  autoReply: 'echo' | null
  nextDeviceId: number
  /** Unix ms when the account joined the network; listings keep that order across restarts. */
  addedAt: number
  /** The "about" text others see (kept from later versions on; absent in earlier state: the default). */
  about?: string
  /** Phone numbers this account blocked (absent in earlier state: none). */
  blocked?: string[]
  /** Privacy settings the account changed, by the network's category name (the rest keep their default). */
  privacy?: Record<string, string>
  /** The app-state sync key and patches (absent in earlier state: made on first use). */
  appState?: AppStateRecord
  /** How the account's phone behaves (absent in earlier state: the default). */
  behaviour?: PhoneBehaviour
  /** Accounts (phone numbers) this one has not shared its number with (absent in earlier state: none). */
  numberHiddenFrom?: string[]
  /** A WhatsApp Business account (absent in earlier state: personal). */
  business?: boolean
}

/** What a new account's about reads, as on WhatsApp. */
export const DEFAULT_ABOUT = 'Hey there! I am using WhatsApp.'

/** Accounts, by phone number. */
export const ACCOUNTS = defineTable<AccountRecord>({ name: 'accounts' })

/** An account on the simulated network: a phone number, a LID, a primary phone (device 0) and its linked devices. */
export class Account {
  readonly phone: string
  readonly lid: string
  readonly phoneDevice: SimDevice
  readonly linkedDevices = new Map<number, LinkedDevice>()
  /** What the account's phone received, by message id, oldest first. */
  readonly inbox: StoredList<InboxEntry>
  private displayName: string
  private aboutText: string
  private readonly blockedPhones: Set<string>
  private readonly numberHiddenFrom: Set<string>
  private readonly privacySettings: Record<string, string>
  private phoneBehaviour: PhoneBehaviour
  private isBusiness: boolean
  private reply: 'echo' | undefined
  private nextDeviceId: number
  private readonly addedAt: number
  private readonly table: StateTable<AccountRecord>
  private readonly appStateRecord: AppStateRecord
  /** The settings the account's devices sync among themselves (app state). */
  readonly appState: AppState

  /** The account as kept in the state, with its devices and inbox. */
  constructor(
    private readonly state: SandboxState,
    record: AccountRecord,
  ) {
    this.phone = record.phone
    this.lid = record.lid
    this.displayName = record.name
    this.aboutText = record.about ?? DEFAULT_ABOUT
    this.blockedPhones = new Set(record.blocked ?? [])
    this.numberHiddenFrom = new Set(record.numberHiddenFrom ?? [])
    this.privacySettings = { ...record.privacy }
    this.phoneBehaviour = { ...DEFAULT_PHONE_BEHAVIOUR, ...record.behaviour }
    this.isBusiness = record.business ?? false
    this.reply = record.autoReply ?? undefined
    this.nextDeviceId = record.nextDeviceId
    this.addedAt = record.addedAt
    this.table = state.open(ACCOUNTS)
    this.phoneDevice = new SimDevice(state, record.phone)
    for (const [, device] of state.open(LINKED_DEVICES).entries(`${record.phone}/`)) {
      this.linkedDevices.set(device.id, new LinkedDevice(state, record.phone, device))
    }
    this.inbox = new StoredList(state, `inbox/${record.phone}`)
    this.appStateRecord = record.appState ?? newAppStateRecord()
    this.appState = new AppState(this.appStateRecord, () => this.save())
  }

  get name(): string {
    return this.displayName
  }

  get about(): string {
    return this.aboutText
  }

  /** A WhatsApp Business account: its devices are told so when they link, and it may use labels. */
  get business(): boolean {
    return this.isBusiness
  }

  /** The account becomes a Business account, or a personal one. */
  setBusiness(business: boolean): void {
    this.isBusiness = business
    this.save()
  }

  /** The phone changes the account's about text. */
  setAbout(text: string): void {
    this.aboutText = text
    this.save()
  }

  /** Whether this account blocked that one: its messages are then not delivered here. */
  blocks(phone: string): boolean {
    return this.blockedPhones.has(phone)
  }

  get blocked(): string[] {
    return [...this.blockedPhones]
  }

  /** The account blocks or unblocks a phone number. */
  setBlocked(phone: string, blocked: boolean): void {
    if (blocked) this.blockedPhones.add(phone)
    else this.blockedPhones.delete(phone)
    this.save()
  }

  /**
   * Whether that account may see this one's phone number: a stranger (someone who is not in its address
   * book and was not given the number) sees only the LID, as WhatsApp shows people outside one's contacts.
   */
  sharesNumberWith(phone: string): boolean {
    return !this.numberHiddenFrom.has(phone)
  }

  /** The account shares its number with that one, or keeps it hidden from it. */
  setNumberShared(phone: string, shared: boolean): void {
    if (shared) this.numberHiddenFrom.delete(phone)
    else this.numberHiddenFrom.add(phone)
    this.save()
  }

  /** The phone numbers this account's number is hidden from. */
  get hiddenFrom(): string[] {
    return [...this.numberHiddenFrom]
  }

  /** The privacy settings the account changed, by category. */
  get privacy(): Record<string, string> {
    return { ...this.privacySettings }
  }

  /** One privacy setting as it holds: the account's choice, or the network's default. */
  privacyOf(category: string): string {
    return this.privacySettings[category] ?? PRIVACY_DEFAULTS[category] ?? 'all'
  }

  /** Whether the account's read receipts are on (`readreceipts` is `all`). */
  get sharesReads(): boolean {
    return this.privacyOf('readreceipts') === 'all'
  }

  setPrivacy(category: string, value: string): void {
    this.privacySettings[category] = value
    this.save()
  }

  /** How the account's phone reads, types and goes online. */
  get behaviour(): PhoneBehaviour {
    return { ...this.phoneBehaviour }
  }

  setBehaviour(behaviour: PhoneBehaviour): void {
    this.phoneBehaviour = { ...behaviour }
    this.save()
  }

  get autoReply(): 'echo' | undefined {
    return this.reply
  }

  /** Changes what is given of the account's name and auto-reply. */
  update(name: string | undefined, autoReply: 'echo' | undefined): void {
    if (name) this.displayName = name
    if (autoReply) this.reply = autoReply
    if (name || autoReply) this.save()
  }

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
    const device = new LinkedDevice(this.state, this.phone, {
      id: this.nextDeviceId++,
      keyIndex: 1,
      registration,
    })
    this.linkedDevices.set(device.id, device)
    this.save()
    device.save()
    return device
  }

  /** A link that did not complete: the device never existed. */
  forgetLinkedDevice(id: number): void {
    this.linkedDevices.delete(id)
    this.state.open(LINKED_DEVICES).remove(`${this.phone}/${id}`)
  }

  hasReceived(id: string): boolean {
    return this.inbox.has(id)
  }

  record(entry: InboxEntry): void {
    this.inbox.set(entry.id, entry)
    if (this.inbox.size > INBOX_LIMIT) this.inbox.delete(this.inbox.firstKey() ?? '')
  }

  /** Writes the account's record; every change to it goes through here. */
  save(): void {
    this.table.put(this.phone, {
      phone: this.phone,
      lid: this.lid,
      name: this.displayName,
      autoReply: this.reply ?? null,
      nextDeviceId: this.nextDeviceId,
      addedAt: this.addedAt,
      about: this.aboutText,
      blocked: [...this.blockedPhones],
      numberHiddenFrom: [...this.numberHiddenFrom],
      privacy: this.privacySettings,
      appState: this.appStateRecord,
      behaviour: this.phoneBehaviour,
      business: this.isBusiness,
    })
  }
}
