import type { Limits } from '../config'
import { AppError } from '../errors'
import type { EventSink } from '../contract/events'
import type { MetricsProvider } from '../contract/metrics'
import type { Logger } from '../logger'
import type { SentAnswer, TallyVotes, WaConnection, NetworkTrafficHandlers } from '../contract/network'
import { AckTracker } from './ack-tracker'
import { IdempotencyLedger } from './idempotency-ledger'
import { type LedgerRecords } from '../store/ledger-records'
import type { LinkPreviewer } from './link-preview'
import type { InstanceBehaviours } from '../contract/instance'
import { CallHandling, type CallSettings } from './call-desk'
import { CommunityManagement } from '../groups/community-desk'
import { GroupManagement } from '../groups/group-desk'
import { StoredChats } from './chat-book'
import { ChannelManagement, channelMediaPath } from './channel-desk'
import { ChatSettings } from './chat-settings'
import { ChatRemoval } from './chat-removal'
import { SavedNames } from './saved-names'
import { StarredMessages } from './starred-messages'
import { LabelManagement } from './labels'
import type { InstanceAuthStore } from '../store/auth-store'
import { loadPicture, OwnProfile } from './own-profile'
import { ChatSignals } from './chat-signals'
import { ContactLookup } from './contact-lookup'
import { MessageActions } from './message-actions'
import type { PollVotes } from '../store/poll-votes'
import type { VoiceNoteConverter } from './media-convert/voice-note-audio'
import { IntakeQueue } from './intake-queue'
import { MessageIntake } from './message-intake'
import { countingSink, type MessageCounters, messageMetricsProvider } from './message-metrics'
import { MessageSender, type SendRequest } from './message-sender'
import type { MessageStore } from '../store/message-store'
import { RecipientDirectory } from './recipient-directory'
import { StatusUpdates } from './status-updates'
import { UnacknowledgedSends } from './unacknowledged-sends'

export interface MessageServiceDeps {
  /** Where messages, their statuses and media are kept. */
  store: MessageStore
  /** Each instance's key store, where the chats' app-state settings are kept beside the app-state versions. */
  auth(instanceId: string): InstanceAuthStore
  /** The idempotency ledger's records. */
  ledger: LedgerRecords
  /** Each voter's latest vote on each poll. */
  polls: PollVotes
  /** Reads a poll's options and tallies its votes (the wa adapter's protocol reading). */
  tallyVotes: TallyVotes
  limits: Limits
  events: EventSink
  logger: Logger
  /** The directory of live connections: an instance's messaging operations, once connected (not_connected otherwise). */
  connections: { connection(instanceId: string): Promise<WaConnection> }
  /** The API's base URL (`http://127.0.0.1:<port>/api/v1`): the port is bound before the parts are built. */
  apiBase: string
  /** Makes any audio the Ogg/Opus a voice note must be. */
  voiceNotes: VoiceNoteConverter
  /** Makes the preview of a text's first link, when a send asks for one. */
  linkPreviews: LinkPreviewer
  /** What an instance does on its own (its settings). */
  behaviours(instanceId: string): InstanceBehaviours
  /** How an instance answers calls (its setting). */
  callSettings(instanceId: string): CallSettings
  saveCallSettings(instanceId: string, settings: CallSettings): Promise<unknown>
  ackTimeoutMs?: number
  /** How long a send the network did not acknowledge is sent again on each new connection before it fails. */
  resendWindowMs?: number
}

/** A media file ready to be served. */
export interface MediaDownload {
  data: Buffer
  mimetype: string
  fileName: string | null
}

const SWEEP_INTERVAL_MS = 6 * 60 * 60_000

/** Where a chat's profile picture is served; the caller adds its own access token. */
export function profilePicturePath(instanceId: string, chat: string): string {
  return `/profile_picture/${encodeURIComponent(instanceId)}/${encodeURIComponent(chat)}`
}

/** Builds the download URL of a message's media; the caller adds its own access token. */
export function mediaDownloadPath(instanceId: string, messageId: string): string {
  return `/media/${encodeURIComponent(instanceId)}/${encodeURIComponent(messageId)}`
}

/**
 * The messages part: sending (send_message), the hooks the adapter reports incoming messages and
 * statuses to, the message store behind getMessage and media downloads, and its retention sweep.
 */
export class MessageService {
  readonly store: MessageStore
  readonly hooks: NetworkTrafficHandlers
  private readonly sender: MessageSender
  /** React, edit, delete for everyone and forward: what is done to messages already there. */
  readonly actions: MessageActions
  /** Read receipts and presence. */
  readonly signals: ChatSignals
  /** Number checks and profiles. */
  readonly contacts: ContactLookup
  /** Incoming calls: events, rejection by hand or by the instance's setting. */
  readonly calls: CallHandling
  /** The chats, their messages and the contacts, as stored. */
  readonly chats: StoredChats
  /** The chats' archive, pin, mute and unread settings (the account's app state). */
  readonly chatSettings: ChatSettings
  /** Starred messages (the account's app state). */
  readonly stars: StarredMessages
  /** Chats cleared and deleted for this account (the account's app state). */
  readonly chatRemoval: ChatRemoval
  /** A Business account's labels, on chats and messages (the account's app state). */
  readonly labels: LabelManagement
  /** The account's own about text, picture and privacy settings. */
  readonly profile: OwnProfile
  /** The account's groups and their changes. */
  readonly groups: GroupManagement
  /** The account's communities: parent groups with their linked groups. */
  readonly communities: CommunityManagement
  /** The account's channels (newsletters): followed and owned, their posts. */
  readonly channels: ChannelManagement
  /** Status updates: posting the account's, viewing its contacts'. */
  readonly statuses: StatusUpdates
  private readonly directory = new RecipientDirectory()
  private readonly acks = new AckTracker()
  private readonly unacknowledged: UnacknowledgedSends
  private readonly ledger: IdempotencyLedger
  private readonly log: Logger
  private sweepTimer: NodeJS.Timeout | undefined
  private readonly counters: MessageCounters = { received: 0, sent: 0 }

  constructor(private readonly deps: MessageServiceDeps) {
    this.log = deps.logger.child({ module: 'messages' })
    const events = countingSink(deps.events, this.counters)
    const connection = (instanceId: string) => deps.connections.connection(instanceId)
    this.store = deps.store
    this.chatSettings = new ChatSettings({
      store: this.store,
      auth: deps.auth,
      events,
      logger: deps.logger,
      connection,
    })
    this.stars = new StarredMessages({
      store: this.store,
      auth: deps.auth,
      events,
      logger: deps.logger,
      connection,
    })
    this.chatRemoval = new ChatRemoval({
      store: this.store,
      events,
      logger: deps.logger,
      connection,
      settings: this.chatSettings,
    })
    this.labels = new LabelManagement({
      store: this.store,
      auth: deps.auth,
      events,
      logger: deps.logger,
      connection,
    })
    const savedNames = new SavedNames(deps.auth, deps.logger)
    this.chats = new StoredChats(this.store, this.chatSettings, savedNames, this.stars, this.labels)
    this.profile = new OwnProfile({ limits: deps.limits, logger: deps.logger, connection })
    this.ledger = new IdempotencyLedger(deps.ledger)
    // Fed by the sender (a send marks its message sent) and by the intake (what the network reports).
    const queue = new IntakeQueue({
      store: this.store,
      events,
      logger: deps.logger,
      behaviours: deps.behaviours,
    })
    this.unacknowledged = new UnacknowledgedSends({
      store: this.store,
      auth: deps.auth,
      logger: deps.logger,
      connection,
      applyStatus: (instanceId, update) => queue.statuses(instanceId, [update]),
      windowMs: deps.resendWindowMs,
    })
    this.sender = new MessageSender({
      onAcknowledged: (instanceId, id, chat) => queue.acknowledged(instanceId, id, chat),
      limits: deps.limits,
      store: this.store,
      ledger: this.ledger,
      directory: this.directory,
      acks: this.acks,
      unacknowledged: this.unacknowledged,
      events,
      logger: deps.logger,
      connection,
      voiceNotes: deps.voiceNotes,
      linkPreviews: deps.linkPreviews,
      ackTimeoutMs: deps.ackTimeoutMs,
      disappearing: (instanceId, chat) => this.chatSettings.disappearing(instanceId, chat),
    })
    this.calls = new CallHandling({
      events,
      sender: this.sender,
      logger: deps.logger,
      connection,
      settings: deps.callSettings,
      saveSettings: deps.saveCallSettings,
    })
    this.contacts = new ContactLookup({
      limits: deps.limits,
      sender: this.sender,
      connection,
      pictureUrl: (instanceId, chat) => `${deps.apiBase}${profilePicturePath(instanceId, chat)}`,
    })
    this.groups = new GroupManagement({
      limits: deps.limits,
      logger: deps.logger,
      events,
      sender: this.sender,
      loadPicture: (input) => loadPicture(input, deps),
      behaviours: deps.behaviours,
      connection,
    })
    this.communities = new CommunityManagement({ connection, groups: this.groups })
    this.channels = new ChannelManagement({
      limits: deps.limits,
      logger: deps.logger,
      events,
      connection,
      downloadUrl: (instanceId, channel, postId) =>
        `${deps.apiBase}${channelMediaPath(instanceId, channel, postId)}`,
    })
    this.statuses = new StatusUpdates({
      store: this.store,
      chats: this.chats,
      sender: this.sender,
      events,
      connection,
    })
    this.signals = new ChatSignals({ store: this.store, sender: this.sender, connection })
    this.actions = new MessageActions({ limits: deps.limits, store: this.store, sender: this.sender, events })
    this.hooks = new MessageIntake({
      chatSettings: this.chatSettings,
      stars: this.stars,
      chatRemoval: this.chatRemoval,
      labels: this.labels,
      savedNames,
      store: this.store,
      events,
      acks: this.acks,
      unacknowledged: this.unacknowledged,
      queue,
      logger: deps.logger,
      downloadUrl: (instanceId, messageId) => `${deps.apiBase}${mediaDownloadPath(instanceId, messageId)}`,
      calls: this.calls,
      groups: this.groups,
      channels: this.channels,
      polls: deps.polls,
      tallyVotes: deps.tallyVotes,
      behaviours: deps.behaviours,
      read: async (instanceId, key) => (await connection(instanceId)).read([key]),
    })
  }

  /** Sends one message; answers the seed's sent-message result once the network acknowledged it. */
  send(instanceId: string, request: SendRequest): Promise<SentAnswer> {
    return this.sender.send(instanceId, request)
  }

  /** An instance (re)connected: the sends the network did not acknowledge go out again, under their ids. */
  connected(instanceId: string): void {
    this.unacknowledged.connected(instanceId)
  }

  /** The media of a stored message: saved bytes, or downloaded now (and saved) from the network. */
  async media(instanceId: string, messageId: string): Promise<MediaDownload> {
    const stored = await this.store.get(instanceId, messageId)
    const media = stored?.message.media
    if (!stored || !media)
      throw new AppError('not_found', 'No media message with that id exists for this instance.')
    const meta = { mimetype: media.mimetype ?? 'application/octet-stream', fileName: media.filename }
    const saved = await this.store.readMedia(instanceId, messageId)
    if (saved) return { ...meta, data: saved }
    if (!stored.networkKey || !stored.content) {
      throw new AppError('not_found', 'This message was sent from here: its file is not kept.')
    }
    const connection = await this.deps.connections.connection(instanceId)
    const data = await connection.downloadMedia(stored.networkKey, Uint8Array.from(stored.content))
    await this.store
      .saveMedia(instanceId, messageId, data)
      .catch((error: unknown) => this.log.warn({ err: error, instanceId }, 'saving downloaded media failed'))
    return { ...meta, data }
  }

  /** Messages sent and received, and the send-queue depth, for GET /api/v1/metrics. */
  metricsProvider(): MetricsProvider {
    return messageMetricsProvider(this.counters, () => this.sender.queue.depth())
  }

  /** Starts the retention sweep (messages, media, idempotency keys). */
  start(): void {
    const sweep = () => {
      Promise.all([this.store.sweep(), this.ledger.sweep()]).catch((error: unknown) =>
        this.log.error({ err: error }, 'message retention sweep failed'),
      )
    }
    this.sweepTimer = setInterval(sweep, SWEEP_INTERVAL_MS)
    this.sweepTimer.unref()
    sweep()
  }

  /** Drops everything kept for a destroyed instance. */
  async forget(instanceId: string): Promise<void> {
    this.directory.forget(instanceId)
    this.unacknowledged.forgetInstance(instanceId)
    this.sender.queue.cancel(instanceId, new AppError('instance_not_found'))
    await this.store.dropInstance(instanceId)
  }

  /** Refuses waiting sends and stops the sweep. */
  close(): void {
    clearInterval(this.sweepTimer)
    this.sender.close()
    this.acks.close()
    this.unacknowledged.close()
  }
}
