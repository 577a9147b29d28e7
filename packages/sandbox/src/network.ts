import { SentReceipts } from './messages/sent-receipts'
import type { Logger } from './logger'
import { AccountDirectory } from './accounts/account-directory'
import type { Account } from './accounts/account'
import { ClientVersionPolicy } from './accounts/client-version'
import { CallLog } from './calls/call-log'
import { ChannelRegistry } from './channels/channel-registry'
import { ProfilePictures } from './accounts/profile-pictures'
import type { LinkedDevice } from './accounts/linked-device'
import { STATUS_BROADCAST, StatusBroadcast } from './messages/status-broadcast'
import { SandboxEvents } from './events'
import { GroupRegistry } from './groups/group-registry'
import { DEFAULT_MEDIA_LIFETIME_MS, MediaStore } from './media/media-store'
import { PhoneMedia } from './media/phone-media'
import { PollSecrets } from './messages/poll-secrets'
import { RecentSends } from './messages/recent-sends'
import { PresenceRelay } from './presence/presence-relay'
import type { SandboxState } from './state/sandbox-state'
import type { ClientConnection } from './transport/client-connection'

/** How the simulated network paces itself. */
export interface NetworkTimings {
  /** Delay between a contact receiving a message and its delivered receipt (the read receipt follows after as long again). */
  receiptDelayMs: number
  /** How long a scan waits for the client's pair-device-sign reply. */
  pairingReplyTimeoutMs: number
  /** How long the media host keeps an uploaded file (until the control API sets another lifetime). */
  mediaLifetimeMs: number
  /**
   * The least time a frame takes from the network to a client, as on a real network; 0 with no jitter: at once
   * (benchmarks that want the bare sandbox).
   */
  latencyMs: number
  /** Up to this much more, at random (frames keep their order). */
  latencyJitterMs: number
}

/** A short hop on a fast network (the README's "Timing" says why this much). */
export const DEFAULT_LATENCY_MS = 20
export const DEFAULT_LATENCY_JITTER_MS = 10

export const DEFAULT_TIMINGS: NetworkTimings = {
  receiptDelayMs: 150,
  pairingReplyTimeoutMs: 10_000,
  mediaLifetimeMs: DEFAULT_MEDIA_LIFETIME_MS,
  latencyMs: DEFAULT_LATENCY_MS,
  latencyJitterMs: DEFAULT_LATENCY_JITTER_MS,
}

/** A logged-in linked device and the account it belongs to. */
export interface LinkedSession {
  account: Account
  device: LinkedDevice
  /** When it logged in (ms since the epoch). */
  loggedInAt: number
}

/**
 * The shared state of the simulated network that every part reads and changes. What outlives a restart is
 * kept in `state`: each part declares its tables (`defineTable`) and writes every change it makes, and is
 * rebuilt from them here, in dependency order.
 */
export class SandboxNetwork {
  readonly directory: AccountDirectory
  readonly groups: GroupRegistry
  /** Channels (newsletters): owners, followers and posts. */
  readonly channels: ChannelRegistry
  readonly media: MediaStore
  /** The media files the accounts' phones hold, to upload again on a linked device's media retry. */
  readonly phoneMedia: PhoneMedia
  readonly pictures: ProfilePictures
  readonly events = new SandboxEvents()
  readonly recentSends: RecentSends
  /** The receipts each account's linked devices sent: live only. */
  readonly sentReceipts = new SentReceipts()
  /** Who the phones' status updates go to. */
  readonly statusBroadcast: StatusBroadcast
  /** The secrets of polls phones received, for their votes; kept. */
  readonly pollSecrets: PollSecrets
  /** Calls between accounts, kept. */
  readonly calls: CallLog
  /** Who is online, who follows whom, and the typing signals phones saw: live only. */
  readonly presence = new PresenceRelay()
  /** Logged-in linked devices, by their connection. */
  readonly sessions = new Map<ClientConnection, LinkedSession>()
  /** Injected login failures: the next login of that phone's devices gets `<failure reason>`. */
  readonly loginFailures = new Map<string, number>()
  /** Network outages: until when (ms since the epoch) that phone's devices are cut at login. */
  readonly outages = new Map<string, number>()
  /** The client versions the network accepts and announces. */
  readonly clientVersions: ClientVersionPolicy
  mediaAuth = ''
  private readonly timers = new Set<NodeJS.Timeout>()
  /** Retry receipts simulated phones sent, per `phone:messageId`, so a broken message is not retried forever. */
  private readonly retryRequests = new Map<string, number>()
  private closed = false

  constructor(
    readonly log: Logger,
    readonly timings: NetworkTimings,
    readonly state: SandboxState,
  ) {
    this.directory = new AccountDirectory(state)
    this.groups = new GroupRegistry(state, this.directory)
    this.channels = new ChannelRegistry(state, this.directory)
    this.media = new MediaStore(state, timings.mediaLifetimeMs)
    this.phoneMedia = new PhoneMedia(state)
    this.pictures = new ProfilePictures(state, this.media)
    this.clientVersions = new ClientVersionPolicy(state)
    this.statusBroadcast = new StatusBroadcast(this.directory)
    this.recentSends = new RecentSends(state, this.directory, (jid, sender) =>
      jid === STATUS_BROADCAST ? this.statusBroadcast.audienceOf(sender) : this.groups.get(jid),
    )
    this.calls = new CallLog(state)
    this.pollSecrets = new PollSecrets(state)
  }

  /** Runs work after a delay, unless the network closes first. Errors are logged. */
  later(delayMs: number, work: () => void | Promise<void>): void {
    if (this.closed) return
    const timer = setTimeout(() => {
      this.timers.delete(timer)
      Promise.resolve()
        .then(work)
        .catch((error: unknown) => this.log.warn({ err: error }, 'deferred sandbox work failed'))
    }, delayMs)
    this.timers.add(timer)
  }

  /** Counts one more retry request for a message and returns the count. */
  countRetryRequest(key: string): number {
    const count = (this.retryRequests.get(key) ?? 0) + 1
    this.retryRequests.set(key, count)
    if (this.retryRequests.size > 1000)
      this.retryRequests.delete(this.retryRequests.keys().next().value as string)
    return count
  }

  close(): void {
    this.closed = true
    for (const timer of this.timers) clearTimeout(timer)
    this.timers.clear()
  }
}
