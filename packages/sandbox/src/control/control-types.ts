import type { DropMode } from '../faults/faults'
import type { SandboxEvents } from '../events'
import type { PhoneBehaviour } from '../accounts/phone-behaviour'
import type { SandboxCall } from '../calls/call-log'
import type { SeenChatState } from '../presence/presence-relay'
import type { SandboxInboxEntry } from '../messages/inbox'
import type { SentReceipt } from '../messages/sent-receipts'
import type {
  SandboxContactInput,
  SandboxLinkPreviewInput,
  SandboxLocationInput,
  SandboxMediaInput,
} from '../messages/outgoing-content'

/** Where clients reach the sandbox and what they must trust. */
import type { SandboxAppState, SandboxAppStateChange, SandboxLabelChange } from './app-state-control'
import type { SandboxChannelControl } from './channel-control'

export interface SandboxEndpoint {
  /** The websocket URL to use as Baileys' `waWebSocketUrl`. */
  wsUrl: string
  /** The 32-byte Curve25519 root key to put in `WA_CERT_DETAILS.PUBLIC_KEY` in the process that runs Baileys. */
  rootPublicKey: Buffer
  /** The media host's self-signed certificate (it is its own CA), for per-socket trust. */
  mediaCaPem: string
  /** The same PEM, written to a file that lives as long as the sandbox. */
  mediaCaPath: string
  /** The client version document, WhatsApp Web's `sw.js` as the sandbox serves it. */
  versionUrl: string
}

export interface SandboxAccountInfo {
  phone: string
  jid: string
  lid: string
  name: string
  autoReply: 'echo' | null
  /** Ids of the account's linked devices that are not removed. */
  linkedDevices: number[]
  /** How its phone reads, types and goes online. */
  behaviour: PhoneBehaviour
  /** A WhatsApp Business account (its devices learn it when they link; it may use labels). */
  business: boolean
}

/** One message: text, a file, a location or contact cards (one of them), optionally quoting and mentioning. */
export interface SandboxSendInput {
  /** A phone number (digits with country code), a user JID, or a group JID (`<id>@g.us`). */
  to: string
  text?: string
  media?: SandboxMediaInput
  location?: SandboxLocationInput
  contacts?: SandboxContactInput[]
  /** A preview shown under the text (given, not fetched). */
  linkPreview?: SandboxLinkPreviewInput
  /** The id of an earlier message the account sent or received, to quote. */
  replyTo?: string
  /** React to an earlier message (sent or received) with an emoji; empty takes the reaction back. */
  reaction?: { id: string; emoji: string }
  /** Change the text of a text the account sent (within the network's edit window). */
  edit?: { id: string; text: string }
  /** Delete a message the account sent, for everyone (within the network's window). */
  revoke?: { id: string }
  /**
   * Vote on a poll the account received, by option names; an empty list takes the vote back. With
   * `unknownPoll`, `id` is a poll the account never received (as if its recipient had created it elsewhere):
   * the vote goes encrypted under a secret no one holds, so no client can read its options.
   */
  vote?: { id: string; options: string[]; unknownPoll?: boolean }
  /** Phone numbers to mention. */
  mentions?: string[]
  /** Address a 1:1 message by phone number (default) or by LID, as WhatsApp does for some chats. */
  addressing?: 'pn' | 'lid'
}

export const SANDBOX_PRESENCE_STATES = [
  'available',
  'unavailable',
  'composing',
  'recording',
  'paused',
] as const
export type SandboxPresenceState = (typeof SANDBOX_PRESENCE_STATES)[number]

/** The sandbox's control surface (design §10), typed for tests and for the HTTP routes. */
export interface SandboxControl {
  readonly endpoint: SandboxEndpoint
  readonly events: SandboxEvents
  /** Channels (newsletters): the phones' own, who follows them, their posts. */
  readonly channels: SandboxChannelControl
  /** The phone `phone` scans the QR text and links that device. Unknown or expired QR: SandboxError('qr_not_found'). */
  link(input: { qr: string; phone: string; name?: string }): Promise<{ jid: string; lid: string }>
  /**
   * The phone `phone` enters the pairing code a device shows for its number (Linked devices → Link with phone
   * number) and that device is linked. A code other than the device's: SandboxError('invalid_parameter'), the
   * device keeps waiting; no device asked for a code for this number: SandboxError('conflict').
   */
  enterPairingCode(
    phone: string,
    input: { code: string; name?: string },
  ): Promise<{ jid: string; lid: string }>
  /** Registers a simulated account (idempotent: an existing one gets its name and auto-reply updated). */
  addAccount(input: {
    phone: string
    name?: string
    autoReply?: 'echo'
    /** The about text others see. */
    about?: string
    /** Who may add the account to groups: `all` (the default) or `contacts` (others get an invitation instead). */
    groupsAdd?: 'all' | 'contacts'
    /**
     * A WhatsApp Business account (false: personal, the default). Devices linked afterwards are told so (pair-success
     * `platform` smba and `biz` with the account's name); only a Business account's app state takes labels.
     */
    business?: boolean
  }): Promise<{ phone: string; jid: string; lid: string }>
  accounts(): SandboxAccountInfo[]
  /**
   * Moves the client versions as a web release does: `current` is announced in the version document,
   * clients below `minimum` are refused with 405 at login (`null` accepts every version). Versions are
   * "2.3000.N"; the answer is the policy now.
   */
  clientVersion(input: {
    current?: string
    minimum?: string | null
  }): Promise<{ current: string; minimum: string | null }>
  /**
   * How long the media host keeps a file uploaded from now on (1 ms to 90 days; default 30 days, as WhatsApp's
   * servers): past it the file is forgotten and downloads answer 404 until a phone uploads it again (media
   * retry). Without `lifetimeMs`, answers the lifetime now.
   */
  mediaLifetime(input: { lifetimeMs?: number }): Promise<{ lifetimeMs: number }>
  /** The account's phone deletes the media files it holds: it can no longer upload them again. Answers how many. */
  forgetMedia(phone: string): Promise<{ files: number }>
  /** What the account's phone received, decrypted, oldest first. */
  inbox(phone: string): SandboxInboxEntry[]
  /** The account's phone calls another account: its linked devices ring. */
  call(phone: string, input: { to: string; video?: boolean }): { id: string }
  /** The calls the account's phone made, with whether they were rejected. */
  calls(phone: string): SandboxCall[]
  /**
   * Changes how the account's phone behaves (what is not given stays); answers the behaviour now. A value
   * the sandbox does not know: SandboxError('invalid_parameter'), and nothing changes.
   */
  setBehaviour(phone: string, input: Partial<PhoneBehaviour>): Promise<PhoneBehaviour>
  /**
   * Whether the account shares its phone number with another account (`with`): one it does not share it with
   * gets its messages addressed by LID alone, as WhatsApp shows a stranger (default: shared). Answers the
   * accounts its number is hidden from now. Unknown account: SandboxError('account_not_found').
   */
  shareNumber(phone: string, input: { with: string; shared: boolean }): Promise<{ hiddenFrom: string[] }>
  /** The ids of messages the account's phone sent that their recipient read (its device's read receipt). */
  reads(phone: string): string[]
  /**
   * The account's phone reads messages it received (by id): their authors' devices get the read receipt, as
   * privacy lets through. An id it did not receive: SandboxError('message_not_found'), and nothing is read.
   */
  read(phone: string, ids: string[]): { read: number }
  /** The receipts the account's linked devices sent (the newest 2,000, oldest first), as the network got them. */
  receipts(phone: string): SentReceipt[]
  /** The account's availability as the network knows it (null: never said), and the chat states it saw. */
  presence(phone: string): { online: boolean | null; chatStates: SeenChatState[] }
  /** The account's phone goes online or offline, or types, records or pauses in its chat with `to`. */
  showPresence(phone: string, input: { state: SandboxPresenceState; to?: string }): void
  /** The account's phone sends a message to a number or a group. Unknown reply_to: SandboxError('quoted_not_found'). */
  send(phone: string, input: SandboxSendInput): Promise<{ id: string }>
  /** Makes a group; the first participant is its creator. */
  createGroup(input: { subject: string; participants: string[] }): Promise<{ groupId: string }>
  /** A group as the network keeps it. Unknown group: SandboxError('recipient_not_found'). */
  group(groupId: string): SandboxGroupInfo
  /**
   * The account's phone changes a group it is in, as its own app would: the network's rules apply (admins
   * only where WhatsApp requires it; refused: SandboxError('conflict') naming why) and every member device
   * is notified. Participant changes answer each participant's result.
   */
  changeGroup(
    phone: string,
    groupId: string,
    change: SandboxGroupChange,
  ): Promise<{ results: SandboxParticipantResult[] }>
  /** The account's phone joins a group by an invite code (a link's, or an invitation it received). */
  joinGroup(phone: string, code: string): Promise<{ groupId: string }>
  /** The phone removes all its linked devices: their sockets close with 401 and cannot log in again. */
  unlink(phone: string): Promise<void>
  /** The account's phone sets a new profile picture (its linked devices are told); answers its URL. */
  setPicture(phone: string, image: Buffer): Promise<{ url: string }>
  /**
   * Cuts the network under the account's connected linked devices; with `downForMs`, their logins are cut too
   * until that time has passed, then the network heals by itself.
   */
  drop(phone: string, mode: DropMode, downForMs?: number): Promise<void>
  /** Cuts the network under every connected linked device of every account at once; answers how many. */
  dropAll(mode: DropMode): number
  /**
   * Another session logs in with the account's credentials: its connected linked devices close with the 440
   * "replaced" stream error; answers how many.
   */
  replace(phone: string): number
  /**
   * The next login of the account's linked devices fails with `<failure reason>`; a reason the network does not
   * send (see `LOGIN_FAILURE_REASONS`): SandboxError('invalid_parameter').
   */
  failNextLogin(phone: string, reason: number): void
  /** The account's app state as the network read it: versions, chats' settings, saved names, devices' requests. */
  appState(phone: string): SandboxAppState
  /**
   * The account's phone archives, pins, mutes or marks a chat unread, or saves a contact's name, in its app:
   * patches its linked devices sync. Nothing to change: SandboxError('missing_parameter').
   */
  changeAppState(phone: string, change: SandboxAppStateChange): Promise<void>
  /**
   * A Business account's phone edits, creates or deletes a label, or puts one on or takes it off a chat or a
   * message: a patch its linked devices sync. A personal account: SandboxError('not_business'), nothing changes.
   */
  changeLabel(phone: string, change: SandboxLabelChange): Promise<void>
  /** The account's phone loses its Signal sessions, as after a reinstall: retry receipts must heal it. */
  forgetSessions(phone: string): void
}

/** A group as the network keeps it. */
export interface SandboxGroupInfo {
  id: string
  subject: string
  description: string | null
  /** Only admins send. */
  announce: boolean
  /** Only admins edit the group's info. */
  restrict: boolean
  /** The disappearing-messages timer, seconds (0: off). */
  ephemeral: number
  /** The picture's id, when the group has one. */
  pictureId: string | null
  members: Array<{ phone: string; lid: string; role: 'superadmin' | 'admin' | null }>
  /** A community (the parent group of linked groups). */
  community: boolean
  /** The community this group is linked to (its announcement group's too), or null. */
  linkedParent: string | null
  /** The announcement group of a community. */
  announcementGroup: boolean
  /** For a community: its linked groups' ids, its announcement group first. */
  linkedGroups: string[]
}

/** A change a member makes to a group from its phone. */
export type SandboxGroupChange =
  | { action: 'add' | 'remove' | 'promote' | 'demote'; participants: string[] }
  | { action: 'subject'; subject: string }
  | { action: 'description'; description: string | null }
  | { action: 'announce' | 'restrict'; on: boolean }
  | { action: 'ephemeral'; seconds: number }
  | { action: 'leave' }

/** One participant's result of a participant change: `error` as the network writes it (403, 404, 409). */
export interface SandboxParticipantResult {
  phone: string
  error: string | null
}
