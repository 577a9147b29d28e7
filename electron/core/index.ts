import { createHash } from 'node:crypto'
import { mkdirSync } from 'node:fs'
import { hostname } from 'node:os'
import { join } from 'node:path'
import type { FastifyInstance } from 'fastify'
import { Authenticator, UiCredential } from './api/auth'
import { API_PREFIX, buildApi } from './api/build-api'
import type { InstanceAccess } from './api/operation'
import { BoundPort } from './api/bound-port'
import { callRouting } from './api/forwarding'
import { Cluster } from './cluster/cluster'
import { SingleNode } from './cluster/single-node'
import type { Coordinator } from './contract/coordination'
import { eventOperations, streamAndMetricsRoutes } from './api/routes/event-routes'
import { webhookOperations } from './api/routes/webhook-routes'
import { sinkOperations } from './api/routes/sink-routes'
import { SinkRegistry } from './events/sink-registry'
import { WebhookRegistry } from './events/webhook-registry'
import { foundationOperations } from './api/routes/foundation-routes'
import { instanceOperations } from './api/routes/instance-routes'
import { chatOperations } from './api/routes/chat-routes'
import { chatSettingsOperations } from './api/routes/chat-settings-routes'
import { chatRemovalOperations } from './api/routes/chat-removal-routes'
import { labelOperations } from './api/routes/label-routes'
import { groupOperations } from './api/routes/group-routes'
import { communityOperations } from './api/routes/community-routes'
import { channelMediaRoutes, channelOperations } from './api/routes/channel-routes'
import { profileOperations } from './api/routes/profile-routes'
import { contactOperations, profilePictureRoutes } from './api/routes/contact-routes'
import { statusOperations } from './api/routes/status-routes'
import { messageActionOperations } from './api/routes/message-action-routes'
import { mediaDownloadRoutes, messageOperations } from './api/routes/message-routes'
import { sandboxRoutesPlugin } from './api/routes/sandbox-plugin'
import { sandboxScanOperation } from './api/routes/sandbox-scan'
import { settingsOperations } from './api/routes/settings-routes'
import { uploadRoutes } from './api/routes/upload-routes'
import { mcpRoutes } from './api/routes/mcp-routes'
import { Closers, once } from './closers'
import type { Config } from './config'
import { EventService } from './events/event-service'
import { EventLoopMetrics } from './events/event-loop-metrics'
import { MetricsRegistry } from './events/metrics'
import { InstanceManager } from './instances/instance-manager'
import { instanceMetricsProvider } from './instances/instance-metrics'
import { keepAlwaysOnline } from './instances/always-online'
import { InstanceRegistry } from './instances/instance-registry'
import { LiveConnections } from './instances/live-connections'
import { behavioursOf } from './instances/instance-settings'
import { createLogger, type Logger } from './logger'
import { NO_CALL_REJECTION } from './messages/call-desk'
import { createLinkPreviewer, LINK_PREVIEW_TIMEOUT_MS } from './messages/link-preview'
import { createVoiceNoteConverter } from './messages/media-convert/voice-note-audio'
import { MessageService } from './messages/message-service'
import { createSandbox, type Sandbox } from '@linkdesk/sandbox'
import type { AuthCipher, AuthStore } from './store/auth-store'
import { openPool, type SharedPool } from './store/postgres/pool'
import { openStores } from './store/stores'
import { TokenService } from './tokens/token-service'
import { APP_VERSION } from './version'
import { installLibsignalConsoleFilter } from './wa/libsignal-console-filter'
import {
  fetchSandboxEndpoint,
  type NetworkEndpoint,
  NetworkRoutes,
  versionUrlOf,
} from './wa/network-endpoint'
import { WaVersionSource } from './wa/wa-version'
import { checkProxyReachable } from './wa/proxy'
import { WaSession } from './wa/wa-session'
import { tallyVotes } from './wa/poll-votes'

export interface CoreDeps {
  logger?: Logger
  /** Encrypts account credentials at rest; the desktop shell passes one backed by Electron's safeStorage. */
  cipher?: AuthCipher
}

/** The running core: its services, where it listens, and how to stop it. */
export interface Core {
  config: Config
  logger: Logger
  /** e.g. http://127.0.0.1:8686 */
  url: string
  /** e.g. http://127.0.0.1:8686/api/v1 */
  apiBase: string
  /** The window's per-launch credential. */
  ui: UiCredential
  tokens: TokenService
  registry: InstanceRegistry
  /** The live instances: state machines and their WhatsApp sockets. */
  instances: InstanceManager
  /** Every instance's credentials and Signal keys. */
  authStore: AuthStore
  /** Sending, the message store, and what is done to messages (reactions, edits, deletes, forwards). */
  messages: MessageService
  /** The simulated network, when started with `--sandbox`. */
  sandbox?: Sandbox
  /** The EventSink producers emit into; also the event and delivery logs and the live stream. */
  events: EventService
  /** Where parts register their metrics providers for GET /api/v1/metrics. */
  metrics: MetricsRegistry
  http: FastifyInstance
  /** A one-time URL that logs a browser in to the window's UI. */
  createLoginUrl(): string
  /** Stops accepting requests, lets in-flight ones finish, and flushes the stores. */
  close(): Promise<void>
}

/** The one entry point of the core: builds every service from a validated config and starts listening. */
export async function createCore(config: Config, deps: CoreDeps = {}): Promise<Core> {
  const logger = deps.logger ?? createLogger(config.logLevel)
  mkdirSync(config.dataDir, { recursive: true, mode: 0o700 })
  // The port comes first: a taken one fails before any store opens, and the parts are given the URL.
  const port = await BoundPort.bind(config.host, config.port)
  const closers = new Closers(logger)
  const closePort = once(() => port.close())
  closers.push('port', closePort)
  const { url } = port
  const apiBase = `${url}${API_PREFIX}`
  try {
    const { coordinator, pool } = chooseCoordination(config, logger)
    const closeCoordinator = once(() => coordinator.close())
    closers.push('coordinator', closeCoordinator)
    const opened = { closers, closePort, closeCoordinator }
    return await buildCore(config, deps.cipher, logger, { port, apiBase, coordinator, pool, ...opened })
  } catch (error) {
    // What opened before the failure closes, last first: nothing of a failed start stays open.
    await closers.closeAll()
    throw error
  }
}

/** Builds the parts in order, each given what it needs, then starts them. */
async function buildCore(
  config: Config,
  cipher: AuthCipher | undefined,
  logger: Logger,
  start: {
    port: BoundPort
    apiBase: string
    coordinator: Coordinator
    pool: SharedPool | undefined
    /** Where each part pushes its close as it opens (the port's and the coordinator's are there already). */
    closers: Closers
    closePort: () => Promise<void>
    closeCoordinator: () => Promise<void>
  },
): Promise<Core> {
  const { port, apiBase, coordinator, closers } = start
  const { url } = port
  const stores = await openStores(config.store, {
    dataDir: config.dataDir,
    cipher,
    logger,
    fsync: config.fsync,
    deferredCommitMs: config.timings.deferredCommitMs,
    pool: start.pool,
    fence: coordinator.fence,
    signals: coordinator.signals,
  })
  closers.push('stores', () => stores.close())
  const { settings } = stores
  const tokens = new TokenService(settings)
  if (config.accessToken) await tokens.register(config.accessToken, 'LINKDESK_ACCESS_TOKEN')
  const registry = new InstanceRegistry(settings)
  const webhooks = new WebhookRegistry(settings, (tokenId, instanceId) =>
    registry.reaches(tokenId, instanceId),
  )
  const sinks = new SinkRegistry(settings)
  const ui = new UiCredential()
  installLibsignalConsoleFilter(logger)
  const sandbox =
    config.network.kind === 'sandbox'
      ? await createSandbox({
          logger,
          stateDir: join(config.dataDir, 'sandbox'),
          reset: config.network.reset,
        })
      : undefined
  if (sandbox) closers.push('sandbox', () => sandbox.close())
  const endpoint: NetworkEndpoint = sandbox
    ? { kind: 'sandbox', ...sandbox.endpoint }
    : config.network.kind === 'sandbox-url'
      ? await fetchSandboxEndpoint(config.network.controlUrl)
      : { kind: 'whatsapp' }
  const network = new NetworkRoutes(endpoint)
  closers.push('network', () => network.close())
  const versions = new WaVersionSource({
    url: versionUrlOf(endpoint, config.waVersionUrl),
    timeoutMs: config.timings.versionFetchMs,
    logger: logger.child({ module: 'wa-version' }),
  })
  const authStore = stores.auth
  await authStore.load(registry.all().map((record) => record.id))
  const auth = new Authenticator(tokens, ui, config.limits.requestsPerMinute)
  const events = await EventService.open({
    store: stores.events,
    durability: stores.eventDurability,
    dataDir: config.dataDir,
    instances: registry,
    webhooks,
    settings: config.events,
    fsync: config.fsync,
    deliveryThreads: config.deliveryThreads,
    logger,
    coordinator,
    sharedLog: stores.sharedLog,
  })
  closers.push('events', () => events.close())
  const metrics = new MetricsRegistry()
  metrics.register(events.metricsProvider())
  const eventLoop = new EventLoopMetrics()
  closers.push('event loop metrics', () => eventLoop.close())
  metrics.register(eventLoop)
  const eventDeps = { registry, events, metrics }
  const access: InstanceAccess = (id, principal) => registry.accessible(id, principal)
  // What messages and instances share: the directory of live connections. The instance manager lists each
  // instance it runs there, the messages part reaches connections through it, and each instance reports its
  // incoming traffic to the messages part's hooks: so the messages part is built first.
  const connections = new LiveConnections({
    coordinator,
    known: (instanceId) => registry.find(instanceId) !== undefined,
  })
  const messages = new MessageService({
    store: stores.messages,
    auth: (instanceId) => authStore.forInstance(instanceId),
    ledger: stores.ledger,
    polls: stores.polls,
    tallyVotes,
    limits: config.limits,
    events,
    logger,
    connections,
    apiBase,
    // A conversion runs in the instance's turn like a media fetch, so it gets the same time limit.
    voiceNotes: createVoiceNoteConverter({
      ffmpeg: config.ffmpeg,
      timeoutMs: config.limits.mediaFetchMs,
      maxBytes: config.limits.mediaBytes,
    }),
    linkPreviews: createLinkPreviewer({
      timeoutMs: Math.min(LINK_PREVIEW_TIMEOUT_MS, config.limits.mediaFetchMs),
      publicOnly: !config.linkPreviewPrivate,
      log: logger,
    }),
    behaviours: (instanceId) => behavioursOf(registry.find(instanceId)),
    callSettings: (instanceId) => registry.find(instanceId)?.calls ?? NO_CALL_REJECTION,
    saveCallSettings: (instanceId, calls) => registry.update(instanceId, (record) => ({ ...record, calls })),
    ackTimeoutMs: config.timings.operationWaitMs,
    resendWindowMs: config.timings.resendWindowMs,
  })
  closers.push('messages', () => messages.close())
  const instances = new InstanceManager({
    logger,
    timings: config.timings,
    events,
    registry,
    authStore,
    // Each instance's session is the wa adapter's, through the instance's proxy as set at each connect; it
    // reports incoming traffic to the messages part's hooks.
    openSession: (instanceId, log, sessionEvents) =>
      new WaSession({
        instanceId,
        logger: log,
        timings: config.timings,
        network: () => network.for(registry.find(instanceId)?.proxy),
        ignoresStatus: () => behavioursOf(registry.find(instanceId)).ignore_status,
        openAuth: () => authStore.forInstance(instanceId),
        versions,
        hooks: messages.hooks,
        events: sessionEvents,
      }),
    checkProxy: (proxy) => checkProxyReachable(proxy),
    forgetMessages: (instanceId) => messages.forget(instanceId),
    coordinator,
    connections,
    observers: [
      keepAlwaysOnline({ registry, signals: messages.signals, logger }),
      // Each new connection sends again what the network did not acknowledge on the last one.
      {
        status: (instanceId, status) => {
          if (status.state === 'connected') messages.connected(instanceId)
        },
      },
      // A destroyed instance's added webhooks go with it (global ones stay).
      {
        destroyed: (instanceId) => {
          webhooks
            .forgetInstance(instanceId)
            .catch((error: unknown) =>
              logger.error({ err: error, instanceId }, 'dropping the webhooks failed'),
            )
        },
      },
    ],
  })
  const closeInstances = once(() => instances.close())
  closers.push('instances', closeInstances)
  metrics.register(messages.metricsProvider())
  metrics.register(coordinator.metricsProvider())
  metrics.register(
    instanceMetricsProvider(
      // Each node reports the instances it runs (a single node: all of them).
      () => registry.all().flatMap((record) => (coordinator.holds(record.id) ? [record.id] : [])),
      (id) => instances.status(id).state,
    ),
  )

  const http = await buildApi({
    logger,
    limits: config.limits,
    // A cluster node's peers name it by its advertised address.
    configuredHost: [
      config.host,
      ...(config.cluster.advertiseUrl ? [new URL(config.cluster.advertiseUrl).hostname] : []),
    ],
    version: APP_VERSION,
    auth,
    access,
    operations: [
      ...foundationOperations({
        instances,
        registry,
        tokens,
        ui,
        version: APP_VERSION,
        waVersion: () => versions.info(),
        coordination: () => coordinator.health(),
      }),
      ...instanceOperations({ registry, instances, webhooks }),
      ...messageOperations({ messages }),
      ...messageActionOperations({ messages }),
      ...contactOperations({ messages }),
      ...statusOperations({ messages }),
      ...chatOperations({ messages }),
      ...chatSettingsOperations({ messages }),
      ...chatRemovalOperations({ messages }),
      ...labelOperations({ messages }),
      ...profileOperations({ messages }),
      ...groupOperations({ messages }),
      ...communityOperations({ messages }),
      ...channelOperations({ messages }),
      ...eventOperations({ ...eventDeps, access }),
      ...webhookOperations({ webhooks, events, access }),
      ...sinkOperations({ sinks, events, access }),
      ...settingsOperations(config, sandbox !== undefined),
      ...(sandbox ? [sandboxScanOperation(instances, sandbox.control)] : []),
    ],
    plugins: [
      streamAndMetricsRoutes({ ...eventDeps, settings: config.events.stream, logger }),
      mediaDownloadRoutes({ messages }),
      channelMediaRoutes({ messages }),
      profilePictureRoutes({ messages }),
      uploadRoutes({ uploads: stores.uploads, maxBytes: config.limits.mediaBytes, apiBase }),
      mcpRoutes({ version: APP_VERSION }),
      ...(sandbox ? [sandboxRoutesPlugin(sandbox.control)] : []),
    ],
    uiDir: config.uiDir,
    calls: callRouting(coordinator, {
      settings,
      access,
      known: (instanceId) => registry.find(instanceId) !== undefined,
    }),
    server: port.server,
  })
  const closeHttp = once(() => http.close())
  closers.push('api', closeHttp)

  // Deliveries left by the last run resume before any request can start a queue of its own.
  await events.start()
  await http.ready()
  // Joins before it answers (peers' requests wait at the port meanwhile): takes back what this node held
  // before a restart, and its share of the orphans.
  await coordinator.join(config.cluster.advertiseUrl ?? url, {
    // An adoption reads only the instance's own records: its settings, its outbox queues, its keys.
    acquired: async (instanceId) => {
      await settings.reloadRecord('instances', instanceId)
      await events.adopt(instanceId)
      await instances.adopt(instanceId)
    },
    parted: async (instanceId) => {
      await instances.part(instanceId)
      await events.release(instanceId)
      // What was written for it before it parted is committed before its lease may be released.
      await events.settled()
    },
    // Rebalancing moves only accounts connected and settled here, never one in its first login or mid-link.
    movable: (instanceId) => instances.settled(instanceId),
  })
  // The order a running core closes in, last pushed first: the node drains (its instances go at once to the
  // peers), the instances stop, the app refuses new requests and the port lets the ones in flight finish,
  // the coordinator stops; then the parts pushed as they opened, last first.
  closers.push('coordinator', start.closeCoordinator)
  closers.push('port', start.closePort)
  closers.push('api', closeHttp)
  closers.push('instances', closeInstances)
  closers.push('drain', () => coordinator.drain())
  port.open(http.routing)
  messages.start()
  logger.info({ url, dataDir: config.dataDir, network: config.network.kind }, 'core started')
  // Linked instances log in with the current client version: restored once it is fetched (or the fetch gave up).
  void versions.refresh().then(() => instances.restoreAll())

  let closing: Promise<void> | undefined
  return {
    config,
    logger,
    url,
    apiBase,
    ui,
    tokens,
    registry,
    instances,
    authStore,
    messages,
    sandbox,
    events,
    metrics,
    http,
    createLoginUrl: () => `${url}/#login=${ui.createLoginCode()}`,
    close: () => {
      // Every step runs, a failed one logged (closers.ts).
      closing ??= closers.closeAll().then((failed) => {
        logger.info(failed.length > 0 ? { failed } : {}, 'core stopped')
      })
      return closing
    },
  }
}

/**
 * How this node shares the work: alone on its LMDB store, or with the nodes on a shared PostgreSQL store (the
 * cluster and the stores share the node's pool).
 */
function chooseCoordination(
  config: Config,
  logger: Logger,
): { coordinator: Coordinator; pool: SharedPool | undefined } {
  if (config.store.kind === 'lmdb') return { coordinator: new SingleNode(), pool: undefined }
  const pool = openPool(config.store.url, { logger, fsync: config.fsync })
  const coordinator = new Cluster({
    pool,
    url: config.store.url,
    nodeId: config.cluster.nodeId ?? defaultNodeId(config.dataDir),
    ttlMs: config.cluster.leaseTtlMs,
    marginMs: config.cluster.leaseMarginMs,
    logger,
  })
  return { coordinator, pool }
}

/** A node id that stays the same across restarts of one data folder on one host. */
function defaultNodeId(dataDir: string): string {
  const host =
    hostname()
      .replace(/[^A-Za-z0-9._-]/g, '-')
      .slice(0, 40) || 'node'
  return `${host}-${createHash('sha256').update(dataDir).digest('hex').slice(0, 8)}`
}

export type { Config } from './config'

// What the shells (the Electron main process, the headless commands) use besides createCore: they import
// the core only through this file, config.ts and logger.ts.
export type { InstanceStatus } from './contract/instance-state'
export { UI_CSP } from './api/ui-csp'
export { unhandledCase } from './exhaustive'
export { logUnhandledRejections } from './process-guard'
export { copyToPostgres } from './store/copy-to-postgres'
export { backupDataFolder, restoreDataFolder } from './store/lmdb/backup'
export { APP_VERSION } from './version'
