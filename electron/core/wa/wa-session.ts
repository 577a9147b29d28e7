import makeWASocket, {
  type AuthenticationState,
  type BinaryNode,
  Browsers,
  type CacheStore,
  type ChatMutation,
  type GroupMetadata,
  isJidBroadcast,
  isJidStatusBroadcast,
  isJidNewsletter,
  jidDecode,
  jidNormalizedUser,
  proto,
  type UserFacingSocketConfig,
  type WAMessage,
  type WASocket,
} from '@whiskeysockets/baileys'
import { boundedCache, CACHE_LIMITS } from '../bounded-cache'
import type { Timings } from '../config'
import type { Logger } from '../logger'
import type { InstanceAuthStore } from '../store/auth-store'
import { baileysLogger } from './baileys-logger'
import { classifyClose } from './disconnect-reason'
import type { SocketNetworkConfig } from './network-endpoint'
import { isLinked, loadWaAuthState, type WaAuthState } from './wa-auth-state'
import { createWaConnection } from './wa-connection'
import { withoutPreallocatedSlots } from './socket-caches'
import {
  chatSettingsChanges,
  clearedChat,
  deletedChats,
  labelAssociationChange,
  labelEditChange,
  starChanges,
} from './chat-settings'
import {
  lacksAddresses,
  lacksMemberAddresses,
  withCallerAddresses,
  withKnownAddresses,
  withMemberAddresses,
  withPresenceAddresses,
} from './known-addresses'
import {
  mapChannelPost,
  mapDecryptedMessage,
  mapInboundMessages,
  mapCallOffer,
  mapPresence,
  mapReceipts,
  mapServerAck,
  mapStatusUpdates,
  foldedStatusUpdates,
  type PollLookup,
  votedPolls,
} from './message-mapping'
import type {
  SessionEvents,
  WaAccount,
  WaConnection,
  WaGroupChange,
  NetworkTrafficHandlers,
} from '../contract/network'
import {
  groupCreated,
  linkChange,
  infoChange,
  isPictureChange,
  participantsChange,
  phoneResolver,
  pictureChange,
} from './group-events'
import { formatVersion, type WaVersion, type WaVersionSource } from './wa-version'

/** Everything a socket of one instance is built from. */
export interface SocketConfigInput {
  instanceId: string
  logger: Logger
  timings: Timings
  network: SocketNetworkConfig
  auth: AuthenticationState
  retryCounter: CacheStore
  getMessage(id: string | null | undefined): Promise<proto.IMessage | undefined>
  groupMetadata(jid: string): Promise<GroupMetadata | undefined>
  /** A decrypted message, before its receipt (Linkdesk's patch of Baileys awaits this; see the README's Baileys patch). */
  onDecrypted(message: WAMessage, context: { offline: boolean }): Promise<void> | void
  /**
   * Holds back the durability of key writes until the returned function is called: the patch holds a
   * message's decryption until onDecrypted has kept it.
   */
  holdKeyWrites(): (kept?: boolean) => void
  /** The client version to announce (the network refuses versions that are too old with 405). */
  version: WaVersion
  /** Whether contacts' status updates are left unread now (the instance's ignore_status). */
  ignoreStatus(): boolean
  /** An app-state mutation Baileys read but has no event for (a cleared chat). */
  onUnprocessedMutation?(mutation: ChatMutation): void
}

/**
 * The Baileys socket config (baileys-notes rule 12): no online presence on connect, no full history, our
 * logger at warn, one retry counter per instance, getMessage from the message store, no status traffic
 * unless asked for (followed channels' posts do arrive), HTTP timeouts and the network endpoint's URL and media trust.
 */
export function socketConfig(input: SocketConfigInput): UserFacingSocketConfig {
  const { timings, network } = input
  return {
    auth: input.auth,
    logger: baileysLogger(input.logger, input.instanceId, input.onUnprocessedMutation),
    browser: Browsers.macOS('Chrome'),
    version: input.version,
    markOnlineOnConnect: false,
    syncFullHistory: false,
    keepAliveIntervalMs: timings.keepAliveIntervalMs,
    connectTimeoutMs: timings.connectTimeoutMs,
    ...(timings.qrTimeoutMs > 0 ? { qrTimeout: timings.qrTimeoutMs } : {}),
    msgRetryCounterCache: input.retryCounter,
    // Status updates arrive only when the instance asks for them; other broadcasts never. Channels' posts arrive
    // only from channels the account follows (channel.post events).
    shouldIgnoreJid: (jid) =>
      isJidStatusBroadcast(jid) ? input.ignoreStatus() : Boolean(isJidBroadcast(jid)),
    getMessage: (key) => input.getMessage(key.id),
    onDecrypted: input.onDecrypted,
    holdKeyWrites: input.holdKeyWrites,
    cachedGroupMetadata: (jid) => input.groupMetadata(jid),
    waWebSocketUrl: network.waWebSocketUrl,
    ...(network.agent ? { agent: network.agent } : {}),
    fetchAgent: network.fetchAgent,
    options: network.options,
  }
}

/** A new Baileys socket, without the empty cache slots Baileys allocates for each (see socket-caches.ts). */
export function openSocket(config: UserFacingSocketConfig): WASocket {
  return withoutPreallocatedSlots(makeWASocket(config))
}

export interface WaSessionOptions {
  instanceId: string
  logger: Logger
  timings: Timings
  /** The network config for the next socket (the instance's proxy, as set now). */
  network(): SocketNetworkConfig
  /** Whether contacts' status updates are left unread (the instance's ignore_status, read at each one). */
  ignoresStatus(): boolean
  /** Opens the instance's durable auth store (after a wipe, a fresh one). */
  openAuth(): InstanceAuthStore
  /** The current client version, shared by all instances. */
  versions: WaVersionSource
  hooks: NetworkTrafficHandlers
  events: SessionEvents
}

/** Baileys' message retry counter; its flush is synchronous. */
export interface RetryCounter extends CacheStore {
  flushAll(): void
}

/** Baileys' message retry counter over a bounded cache: one per instance, kept across its sockets. */
export function retryCounterCache(): RetryCounter {
  const counts = boundedCache<string, NonNullable<unknown>>(CACHE_LIMITS.retryCounter)
  return {
    get: <T>(key: string) => counts.get(key) as T | undefined,
    set: <T>(key: string, value: T) => {
      if (value === undefined || value === null) counts.delete(key)
      else counts.set(key, value)
    },
    del: (key) => counts.delete(key),
    flushAll: () => counts.clear(),
  }
}

/**
 * The Baileys adapter for one instance: owns at most one live socket at a time, builds a brand-new one for
 * each connect (after detaching and ending the previous one), keeps the creds, the retry counter and the
 * group metadata cache across sockets, and translates everything to Linkdesk types. It never decides to
 * reconnect: the instance's state machine does, from the verdicts it reports.
 */
export class WaSession {
  private socket: WASocket | undefined
  private auth: WaAuthState | undefined
  private qrSeen = false
  /** The version the current (or last) socket announced. */
  private announced: WaVersion | undefined
  private isOpen = false
  /** The network config the current (or last) socket was built with. */
  private network: SocketNetworkConfig | undefined
  private readonly retryCounter = retryCounterCache()
  private readonly groups = boundedCache<string, GroupMetadata>(CACHE_LIMITS.groupMetadata)
  /** Ids of messages the app kept before their receipt, whose upsert is not reported again. */
  private readonly kept = new Set<string>()
  private readonly log: Logger
  /** Counts detaches: a socket that waits to be opened is not once a later detach happened. */
  private detaches = 0

  constructor(private readonly options: WaSessionOptions) {
    this.log = options.logger
  }

  /** Whether the stored credentials are a completed link. */
  get linked(): boolean {
    return isLinked(this.loadAuth().state.creds)
  }

  /** Whether the current socket is open and logged in. */
  get open(): boolean {
    return this.isOpen && this.socket !== undefined
  }

  /** The linked account from the stored credentials, if any. */
  get account(): WaAccount | undefined {
    return accountOf(this.loadAuth().state.creds.me)
  }

  /**
   * Replaces the current socket (if any) by a brand-new one built from the stored credentials. While the
   * socket just ended still holds the key writes of a message it is decrypting, the new one waits for it: it
   * then starts on what that decryption left durable, never beside it (the writes of a message it did not keep
   * are dropped, and the store with them).
   */
  connect(): void {
    this.detach()
    const store = this.auth?.store
    if (!store?.holding) return this.startSocket()
    const detaches = this.detaches
    const waited = Date.now()
    this.log.info('the next socket waits for the previous one to finish decrypting a message')
    void store.settled().then(() => {
      if (this.detaches !== detaches) return
      this.log.info({ waitedMs: Date.now() - waited }, 'the previous socket finished decrypting')
      this.startSocket()
    })
  }

  private startSocket(): void {
    if (this.auth && !this.auth.store.usable) {
      this.log.warn('the auth store dropped or failed writes; the keys are read again from what is durable')
      this.auth = undefined
    }
    const auth = this.loadAuth()
    const { timings, instanceId } = this.options
    const network = this.options.network()
    this.network = network
    if (network.proxy) this.log.info({ proxy: network.proxy }, 'connecting through a proxy')
    const version = this.options.versions.current
    this.announced = version
    const socket = openSocket(
      socketConfig({
        instanceId,
        logger: this.options.logger,
        timings,
        network,
        auth: auth.state,
        retryCounter: this.retryCounter,
        getMessage: (id) => this.storedMessage(id),
        groupMetadata: (jid) => this.groupMetadata(jid),
        onDecrypted: (message, { offline }) => this.decrypted(socket, auth, message, offline),
        // A socket being replaced decrypts nothing more: the network delivers the message to the next one.
        holdKeyWrites: () => {
          if (this.socket !== socket)
            throw new Error('the socket was replaced before the message was decrypted')
          return auth.holdKeyWrites()
        },
        version,
        ignoreStatus: () => this.options.ignoresStatus(),
        onUnprocessedMutation: (mutation) => {
          const cleared = clearedChat(mutation)
          if (cleared) this.options.hooks.onAppState(instanceId, [cleared])
        },
      }),
    )
    this.socket = socket
    this.kept.clear()
    this.qrSeen = false
    this.isOpen = false
    this.listen(socket, auth)
  }

  /** Ends the current socket without reporting it as a close; the credentials stay. */
  end(): void {
    this.detach()
  }

  /**
   * Logs out of the network if the socket is open (the phone then drops this device), and ends the socket
   * either way. The caller wipes the stored credentials afterwards.
   */
  async logout(): Promise<void> {
    const socket = this.socket
    const wasOpen = this.open
    this.socket = undefined
    this.isOpen = false
    if (!socket) return
    await endSocket(socket, async () => {
      if (!wasOpen) return
      try {
        await socket.logout()
      } catch (error) {
        this.log.warn({ err: error }, 'logout request failed; ending the socket anyway')
      }
    })
  }

  /** Forgets the in-memory credentials, so the next connect reads the store again (after a wipe). */
  forgetCredentials(): void {
    this.detach()
    this.auth = undefined
    this.retryCounter.flushAll()
    this.groups.clear()
  }

  /** Whether the current socket has shown a QR, the moment a pairing code may be requested. */
  get awaitingScan(): boolean {
    return this.qrSeen && !this.open
  }

  /** Fetches the current client version; true when it is not the one the last socket announced. */
  async refreshVersion(): Promise<boolean> {
    const fresh = await this.options.versions.refresh()
    return this.announced === undefined || formatVersion(fresh) !== formatVersion(this.announced)
  }

  /** Asks the network for an 8-character pairing code for `phone` (digits with country code). */
  async requestPairingCode(phone: string): Promise<string> {
    const socket = this.socket
    if (!socket || !this.qrSeen) throw new Error('no socket waiting for a scan')
    return socket.requestPairingCode(phone)
  }

  /** The account with its current avatar URL ("" when there is none or it cannot be read). */
  async profile(): Promise<{ account: WaAccount; avatar: string }> {
    const account = this.account
    if (!account) throw new Error('not linked')
    const socket = this.socket
    let avatar = ''
    if (socket && this.open) {
      try {
        avatar = (await socket.profilePictureUrl(jidNormalizedUser(account.id), 'image', 10_000)) ?? ''
      } catch (error) {
        this.log.debug({ err: error }, 'no avatar')
      }
    }
    return { account, avatar }
  }

  /** The messaging operations, while open. */
  connection(): WaConnection | undefined {
    const socket = this.socket
    const account = this.account
    if (!socket || !this.open || !account) return undefined
    return createWaConnection(socket, account, this.network ?? this.options.network(), this.log)
  }

  private loadAuth(): WaAuthState {
    const { hooks, instanceId } = this.options
    this.auth ??= loadWaAuthState(this.options.openAuth(), (pairs) => hooks.onLidPairs(instanceId, pairs))
    return this.auth
  }

  private detach(): void {
    this.detaches += 1
    const socket = this.socket
    this.socket = undefined
    this.isOpen = false
    if (socket) void endSocket(socket)
  }

  private listen(socket: WASocket, auth: WaAuthState): void {
    const { events, hooks, instanceId } = this.options
    const current = () => this.socket === socket
    const guard =
      <A extends unknown[]>(name: string, handler: (...args: A) => void) =>
      (...args: A) => {
        if (!current()) return
        try {
          handler(...args)
        } catch (error) {
          this.log.error({ err: error, event: name }, 'socket event handler failed')
        }
      }

    socket.ev.on(
      'creds.update',
      guard('creds.update', (update) => {
        auth
          .saveCreds()
          .catch((error: unknown) => this.log.error({ err: error }, 'saving credentials failed'))
        const account = update.me ? accountOf(auth.state.creds.me) : undefined
        if (account) events.account(account)
      }),
    )
    socket.ev.on(
      'connection.update',
      guard('connection.update', (update) => {
        if (update.qr) {
          this.qrSeen = true
          events.qr(update.qr)
        }
        if (update.isNewLogin) events.paired()
        if (update.connection === 'open') {
          this.isOpen = true
          const account = accountOf(auth.state.creds.me)
          if (account) events.open(account)
        }
        if (update.connection === 'close') {
          this.socket = undefined
          this.isOpen = false
          const error = update.lastDisconnect?.error
          events.close(classifyClose(error), error instanceof Error ? error.message : 'closed')
        }
      }),
    )
    socket.ev.on(
      'messages.upsert',
      guard('messages.upsert', ({ messages, type }) => {
        const folded = foldedStatusUpdates(messages)
        if (folded.length > 0) hooks.onStatuses(instanceId, folded)
        // Messages the app kept before their receipt were reported already; channel posts were, as posts.
        const unreported = messages.filter(
          (message) =>
            !this.kept.delete(message.key.id ?? '') && !isJidNewsletter(message.key.remoteJid ?? undefined),
        )
        const me = auth.state.creds.me
        this.withAddresses(socket, unreported, (known) =>
          this.withPolls(me, known, (polls) => {
            const mapped = mapInboundMessages(known, accountOf(me), this.log, polls)
            if (mapped.length > 0) hooks.onMessages(instanceId, mapped, { live: type === 'notify' })
          }),
        )
      }),
    )
    socket.ev.on(
      'messaging-history.set',
      guard('messaging-history.set', ({ messages, chats }) => {
        const me = auth.state.creds.me
        const unread = chats.flatMap((chat) =>
          chat.id ? [{ chat: chat.id, count: chat.unreadCount ?? 0 }] : [],
        )
        this.withAddresses(socket, messages, (known) =>
          this.withPolls(me, known, (polls) =>
            hooks.onHistory(instanceId, {
              messages: mapInboundMessages(known, accountOf(me), this.log, polls),
              unread,
            }),
          ),
        )
      }),
    )
    socket.ev.on(
      'messages.update',
      guard('messages.update', (updates) => {
        const mapped = mapStatusUpdates(updates)
        if (mapped.length > 0) hooks.onStatuses(instanceId, mapped)
        const stars = starChanges(updates)
        if (stars.length > 0) hooks.onAppState(instanceId, stars)
      }),
    )
    socket.ev.on(
      'message-receipt.update',
      guard('message-receipt.update', (receipts) => {
        const mapped = mapReceipts(receipts)
        if (mapped.length === 0) return
        if (!lacksMemberAddresses(mapped)) return hooks.onStatuses(instanceId, mapped)
        // Statuses only move forward, so receipts named once the mapping answered keep their meaning.
        const { lidMapping } = socket.signalRepository
        const phoneOf = phoneResolver(
          (group) => this.groupMetadata(group),
          (lid) => lidMapping.getPNForLID(lid),
        )
        withMemberAddresses(lidMapping, (group, lid) => phoneOf(group)(lid), mapped)
          .then((known) => hooks.onStatuses(instanceId, known))
          .catch((error: unknown) => this.log.error({ err: error }, 'naming receipt members failed'))
      }),
    )
    // A success ack is the moment a send is known to have reached the network, which `sendMessage` (resolving
    // once written) does not tell; an error ack is its refusal.
    socket.ws.on(
      'CB:ack,class:message',
      guard('ack', (node: BinaryNode) => {
        const update = mapServerAck(node)
        if (update) hooks.onStatuses(instanceId, [update])
      }),
    )
    socket.ev.on(
      'contacts.update',
      guard('contacts.update', (updates) => {
        const own = ownJids(auth.state.creds.me)
        if (updates.some((update) => update.imgUrl !== undefined && own.has(update.id ?? ''))) {
          events.avatarChanged()
        }
      }),
    )
    socket.ev.on(
      'contacts.upsert',
      guard('contacts.upsert', (contacts) => {
        const names = contacts.flatMap(({ id, name }) => (id && name ? [{ chat: id, name }] : []))
        if (names.length > 0) hooks.onSavedNames(instanceId, names)
      }),
    )
    socket.ev.on(
      'chats.update',
      guard('chats.update', (updates) => {
        const changes = chatSettingsChanges(updates)
        if (changes.length > 0) hooks.onChatSettings(instanceId, changes)
      }),
    )
    socket.ev.on(
      'chats.delete',
      guard('chats.delete', (chats) => hooks.onAppState(instanceId, deletedChats(chats, Date.now()))),
    )
    socket.ev.on(
      'labels.edit',
      guard('labels.edit', (label) => hooks.onAppState(instanceId, [labelEditChange(label)])),
    )
    socket.ev.on(
      'labels.association',
      guard('labels.association', (association) =>
        hooks.onAppState(instanceId, [labelAssociationChange(association)]),
      ),
    )
    socket.ev.on(
      'call',
      guard('call', (calls) => {
        for (const call of calls) {
          const offer = mapCallOffer(call)
          if (!offer) continue
          withCallerAddresses(socket.signalRepository.lidMapping, offer)
            .then((known) => hooks.onCall(instanceId, known))
            .catch((error: unknown) => this.log.error({ err: error }, 'naming a caller failed'))
        }
      }),
    )
    // In the order the network sent them (typing, then paused), though naming a participant may wait on the
    // LID mapping.
    let presences = Promise.resolve()
    socket.ev.on(
      'presence.update',
      guard('presence.update', (update) => {
        const mapped = mapPresence(update)
        if (mapped.length === 0) return
        presences = presences
          .then(async () =>
            hooks.onPresence(
              instanceId,
              await withPresenceAddresses(socket.signalRepository.lidMapping, mapped),
            ),
          )
          .catch((error: unknown) => this.log.error({ err: error }, 'naming a presence’s participant failed'))
      }),
    )
    this.listenToGroups(socket)
  }

  /**
   * Group changes, reported in the order the network announced them (finding a LID's phone number may
   * wait on the LID mapping). Each change makes the cached metadata stale: it is dropped first, so a fetch
   * made to name who acted is the one the next send uses.
   */
  private listenToGroups(socket: WASocket): void {
    const { hooks, instanceId } = this.options
    const resolverFor = phoneResolver(
      (group) => this.groupMetadata(group),
      (lid) => socket.signalRepository.lidMapping.getPNForLID(lid),
    )
    let reported = Promise.resolve()
    const report = (group: string, change: () => Promise<WaGroupChange | undefined>) => {
      reported = reported
        .then(async () => {
          this.groups.delete(group)
          const found = await change()
          const account = accountOf(this.auth?.state.creds.me)
          if (found && account && this.socket === socket) hooks.onGroupChange(instanceId, found, account)
        })
        .catch((error: unknown) => this.log.error({ err: error, group }, 'reporting a group change failed'))
    }
    socket.ev.on('group-participants.update', (update) => {
      // The notification pairs each member's LID with their number: kept, as the network's other mappings are.
      const pairs = update.participants.flatMap((p) =>
        p.id.endsWith('@lid') && p.phoneNumber ? [{ lid: p.id, pn: p.phoneNumber }] : [],
      )
      if (pairs.length > 0) {
        socket.signalRepository.lidMapping
          .storeLIDPNMappings(pairs)
          .catch((error: unknown) => this.log.warn({ err: error }, 'keeping LID mappings failed'))
      }
      report(update.id, () => participantsChange(update, resolverFor(update.id)))
    })
    socket.ev.on('groups.update', (updates) => {
      for (const update of updates) {
        if (update.id) report(update.id, () => infoChange(update, resolverFor(update.id as string)))
      }
    })
    socket.ev.on('groups.upsert', (groups) => {
      for (const metadata of groups)
        report(metadata.id, () => groupCreated(metadata, resolverFor(metadata.id)))
    })
    socket.ev.on('messages.upsert', ({ messages }) => {
      for (const message of messages) {
        const group = message.key.remoteJid
        if (group && isPictureChange(message)) report(group, () => pictureChange(message, resolverFor(group)))
      }
    })
    // Community links come as w:gp2 notifications Baileys acknowledges without an event: read from the frame.
    for (const tag of ['link', 'unlink']) {
      socket.ws.on(`CB:notification,type:w:gp2,${tag}`, (notification: BinaryNode) => {
        const from = notification.attrs.from
        if (!from) return
        report(from, async () => {
          const change = await linkChange(notification, resolverFor(from))
          if (change) this.groups.delete(change.group)
          return change
        })
      })
    }
  }

  /** Hands a decrypted message to the app before Baileys receipts it (NetworkTrafficHandlers.onDecrypted). */
  private async decrypted(
    socket: WASocket,
    auth: WaAuthState,
    message: WAMessage,
    offline: boolean,
  ): Promise<void> {
    if (isJidNewsletter(message.key.remoteJid ?? undefined)) {
      if (this.socket !== socket) throw new Error('the socket was replaced before the post was kept')
      return this.options.hooks.onChannelPost(this.options.instanceId, mapChannelPost(message))
    }
    const me = auth.state.creds.me
    const [known = message] = await withKnownAddresses(socket.signalRepository.lidMapping, [message])
    const polls = await this.pollLookup(me, [known])
    // A socket being replaced withholds its receipt: the network then delivers the message to the next one.
    if (this.socket !== socket) throw new Error('the socket was replaced before the message was kept')
    const inbound = me ? mapDecryptedMessage(known, me, accountOf(me), this.log, polls) : undefined
    if (!inbound) return
    await this.options.hooks.onDecrypted(this.options.instanceId, inbound, { live: !offline })
    this.kept.add(inbound.message.id)
  }

  /**
   * Messages with the other address of each person they name by one address only, where the LID mapping
   * knows it: at once when every message names its people fully (most do), after the lookups otherwise.
   */
  private withAddresses(
    socket: WASocket,
    messages: readonly WAMessage[],
    use: (known: readonly WAMessage[]) => void,
  ): void {
    if (!lacksAddresses(messages)) return use(messages)
    withKnownAddresses(socket.signalRepository.lidMapping, messages)
      .then(use)
      .catch((error: unknown) => this.log.error({ err: error }, 'finding the other addresses failed'))
  }

  /**
   * Reads the stored polls these messages vote on, then maps them: at once when none votes (most messages,
   * so they keep their order with the socket's other events), after the reads otherwise.
   */
  private withPolls(
    me: { id: string; lid?: string } | undefined,
    messages: readonly WAMessage[],
    use: (polls: PollLookup | undefined) => void,
  ): void {
    if (!me || votedPolls(messages).length === 0) return use(me && { me, content: () => undefined })
    this.pollLookup(me, messages)
      .then(use)
      .catch((error: unknown) => this.log.error({ err: error }, 'reading votes failed'))
  }

  /** What the mapping needs to read the votes among these messages: the polls' stored contents. */
  private async pollLookup(
    me: { id: string; lid?: string } | undefined,
    messages: readonly WAMessage[],
  ): Promise<PollLookup | undefined> {
    if (!me) return undefined
    const { hooks, instanceId } = this.options
    const contents = new Map<string, Uint8Array | undefined>()
    for (const id of votedPolls(messages)) contents.set(id, await hooks.pollContent(instanceId, id))
    return { me, content: (id) => contents.get(id) }
  }

  private async storedMessage(id: string | null | undefined): Promise<proto.IMessage | undefined> {
    if (!id) return undefined
    try {
      const content = await this.options.hooks.getMessage(this.options.instanceId, id)
      return content ? proto.Message.decode(content) : undefined
    } catch (error) {
      this.log.error({ err: error, messageId: id }, 'getMessage failed')
      return undefined
    }
  }

  private async groupMetadata(jid: string): Promise<GroupMetadata | undefined> {
    const cached = this.groups.get(jid)
    if (cached) return cached
    const socket = this.socket
    if (!socket) return undefined
    const metadata = await socket.groupMetadata(jid)
    this.groups.set(jid, metadata)
    return metadata
  }
}

/** The account's own user JIDs (phone number and LID, without device), as notifications name it. */
function ownJids(me: { id: string; lid?: string } | undefined): Set<string> {
  return new Set([me?.id, me?.lid].filter((jid): jid is string => Boolean(jid)).map(jidNormalizedUser))
}

function accountOf(me: { id: string; name?: string; lid?: string } | undefined): WaAccount | undefined {
  if (!me?.id) return undefined
  const decoded = jidDecode(me.id)
  if (!decoded?.user) return undefined
  const name = me.name && me.name !== '~' ? me.name : null
  return {
    id: `${decoded.user}:${decoded.device ?? 0}@s.whatsapp.net`,
    number: decoded.user,
    name,
    lid: me.lid ?? null,
  }
}

/**
 * Ends a socket for good: its listeners first (so its close is never reported), then (after `lastWords`, such
 * as a logout request) `end(undefined)`.
 * Baileys' end() unhooks the websocket's close listeners before closing, so queries still waiting on the
 * socket would wait for their full timeout (up to a minute of live timers); they are failed now instead,
 * as a dropped network would fail them.
 */
async function endSocket(socket: WASocket, lastWords?: () => Promise<void>): Promise<void> {
  detachListeners(socket)
  const waiting = socket.ws.listeners('close') as Array<() => void>
  await lastWords?.()
  void socket.end(undefined)
  for (const fail of waiting) fail()
}

/** Removes every listener of a socket's emitter (Baileys types the call per event; at runtime it takes none). */
function detachListeners(socket: WASocket): void {
  ;(socket.ev.removeAllListeners as (event?: string) => void)()
}
