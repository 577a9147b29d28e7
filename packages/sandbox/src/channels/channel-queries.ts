import type { Account } from '../accounts/account'
import type { SandboxNetwork } from '../network'
import { bytesOf, child, iqError, iqResult, node, unixNow, type BinaryNode } from '../stanzas/binary-node'
import type { StanzaContext, StanzaRouter } from '../stanzas/stanza-router'
import { type Channel, ChannelRefusal, type ChannelPost } from './channel-registry'

/**
 * The `w:mex` query ids Baileys 7 sends for channels (its `QueryIds`, and WhatsApp Web's "subscribed" query
 * for the followed list), with the path under `data` each answer is read from.
 */
export const CHANNEL_QUERIES = {
  create: { id: '8823471724422422', path: 'xwa2_newsletter_create' },
  metadata: { id: '6563316087068696', path: 'xwa2_newsletter' },
  follow: { id: '24404358912487870', path: 'xwa2_newsletter_join_v2' },
  unfollow: { id: '9767147403369991', path: 'xwa2_newsletter_leave_v2' },
  subscribed: { id: '6388546374527196', path: 'xwa2_newsletter_subscribed' },
} as const

/** A channel as the network describes it in `w:mex` answers, to a viewer. */
export function channelMetadata(
  network: SandboxNetwork,
  channel: Channel,
  viewer: Account | undefined,
): object {
  return {
    id: channel.jid,
    state: { type: 'ACTIVE' },
    thread_metadata: {
      creation_time: String(channel.createdAt),
      name: { text: channel.name },
      description: { text: channel.description },
      invite: channel.invite,
      subscribers_count: String(channel.followers.length),
      verification: 'UNVERIFIED',
      // No picture: the ids are empty (Baileys' newsletterCreate reads `picture.id` without a check).
      picture: { id: '', direct_path: '' },
      owner: network.directory.get(channel.owner)?.pnJid ?? null,
    },
    viewer_metadata: { mute: 'OFF', role: channel.roleOf(viewer) },
  }
}

type Variables = Record<string, unknown>

function stringOf(value: unknown): string {
  return typeof value === 'string' ? value : ''
}

/** The channel a query's `newsletter_id` names, or the network's 404. */
function named(network: SandboxNetwork, variables: Variables): Channel {
  const channel = network.channels.get(stringOf(variables.newsletter_id))
  if (!channel) throw new ChannelRefusal(404, 'newsletter not found')
  return channel
}

function answer(network: SandboxNetwork, queryId: string, variables: Variables, account: Account): object {
  const { channels } = network
  switch (queryId) {
    case CHANNEL_QUERIES.create.id: {
      const input = (variables.input ?? {}) as Variables
      const channel = channels.create(account, stringOf(input.name), stringOf(input.description))
      network.events.emit('channel', { channel: channel.jid, phone: account.phone, change: 'create' })
      return channelMetadata(network, channel, account)
    }
    case CHANNEL_QUERIES.metadata.id: {
      const input = (variables.input ?? {}) as Variables
      const key = stringOf(input.key)
      const channel = input.type === 'INVITE' ? channels.byInvite(key) : channels.get(key)
      if (!channel) throw new ChannelRefusal(404, 'newsletter not found')
      return channelMetadata(network, channel, account)
    }
    case CHANNEL_QUERIES.follow.id: {
      const channel = named(network, variables)
      channel.follow(account)
      network.events.emit('channel', { channel: channel.jid, phone: account.phone, change: 'follow' })
      return { id: channel.jid }
    }
    case CHANNEL_QUERIES.unfollow.id: {
      const channel = named(network, variables)
      channel.unfollow(account)
      network.events.emit('channel', { channel: channel.jid, phone: account.phone, change: 'unfollow' })
      return { id: channel.jid }
    }
    case CHANNEL_QUERIES.subscribed.id:
      return channels.of(account).map((channel) => channelMetadata(network, channel, account))
    default:
      throw new ChannelRefusal(501, `query ${queryId} is not implemented by the sandbox`)
  }
}

function pathOf(queryId: string): string | undefined {
  return Object.values(CHANNEL_QUERIES).find((query) => query.id === queryId)?.path
}

/**
 * A `w:mex` query: `<query query_id>` holding `{"variables":…}` as JSON; the answer is `<result>` holding
 * `{"data":{<path>:…}}`, or `{"errors":[{message, extensions:{error_code}}]}` when the network refuses,
 * which Baileys throws as a Boom with that status. Queries the sandbox does not know are such an error (501).
 */
async function handleMex(ctx: StanzaContext, iq: BinaryNode, query: BinaryNode | undefined): Promise<void> {
  const { network, connection, session } = ctx
  if (!session) return connection.send(iqError(iq, 401, 'not-authorized'))
  const queryId = query?.attrs.query_id ?? ''
  let body: object
  try {
    const parsed = JSON.parse(bytesOf(query).toString('utf8') || '{}') as { variables?: Variables }
    const data = answer(network, queryId, parsed.variables ?? {}, session.account)
    body = { data: { [pathOf(queryId) ?? queryId]: data } }
  } catch (error) {
    if (!(error instanceof ChannelRefusal) && !(error instanceof SyntaxError)) throw error
    const code = error instanceof ChannelRefusal ? error.code : 400
    ctx.log.debug({ queryId, code }, 'mex query refused')
    body = { errors: [{ message: error.message, extensions: { error_code: code } }] }
  }
  await network.state.flushed()
  connection.send(iqResult(iq, [node('result', {}, Buffer.from(JSON.stringify(body)))]))
}

/** A post as `<message>` in a fetch's answer and in what followers' devices receive. */
export function postNode(post: ChannelPost, attrs: Record<string, string> = {}): BinaryNode {
  const counts = new Map<string, number>()
  for (const emoji of Object.values(post.reactions)) counts.set(emoji, (counts.get(emoji) ?? 0) + 1)
  const reactions = [...counts].map(([code, count]) => node('reaction', { code, count: String(count) }))
  return node(
    'message',
    { id: post.id, server_id: String(post.serverId), t: String(post.t), type: post.type, ...attrs },
    [node('plaintext', {}, post.content), ...(reactions.length ? [node('reactions', {}, reactions)] : [])],
  )
}

/**
 * `<iq xmlns="newsletter" type="get" to="<channel>"><message_updates count since? after?/>`: the channel's
 * newest posts, as `<message_updates><messages jid><message server_id id t type><plaintext/>…`; anyone may
 * read a channel, as on WhatsApp. `after` is taken as "older than this server id", for paging back.
 */
function handleMessageUpdates(ctx: StanzaContext, iq: BinaryNode, request: BinaryNode | undefined): void {
  const { network, connection } = ctx
  const channel = network.channels.get(iq.attrs.to)
  if (!channel) return connection.send(iqError(iq, 404, 'item-not-found'))
  const count = Math.min(Math.max(Number(request?.attrs.count) || 0, 1), 100)
  const after = request?.attrs.after ? Number(request.attrs.after) : undefined
  const posts = channel.posts(count, after).map((post) => postNode(post))
  connection.send(
    iqResult(iq, [
      node('message_updates', {}, [node('messages', { jid: channel.jid, t: String(unixNow()) }, posts)]),
    ]),
  )
}

export function registerChannelQueries(router: StanzaRouter): void {
  router.iq('w:mex', 'get', 'query', handleMex)
  router.iq('newsletter', 'get', 'message_updates', handleMessageUpdates)
}

/** Reads the one child a client message to a channel carries. */
export function plaintextOf(stanza: BinaryNode): Buffer | undefined {
  const plaintext = child(stanza, 'plaintext')
  return plaintext ? bytesOf(plaintext) : undefined
}
