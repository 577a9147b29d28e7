import type { Static } from '@sinclair/typebox'
import type { FastifyInstance, FastifyRequest } from 'fastify'
import type { PhoneBehaviour } from '../accounts/phone-behaviour'
import { SandboxError } from '../errors'
import { registerChannelRoutes } from './channel-control'
import type { SandboxLabelChange } from './app-state-control'
import { getRoute, postRoute } from './control-route'
import type { SandboxContactInput, SandboxMediaInput } from '../messages/outgoing-content'
import * as schemas from './control-schemas'
import type { SandboxGroupChange, SandboxSendInput } from './control-types'
import type { SandboxControl } from './control-types'

/** A field one variant of a body needs. */
function needed<T>(value: T | undefined, field: string): T {
  if (value === undefined) throw new SandboxError('missing_parameter', `${field} is required.`)
  return value
}

/** A list of phone numbers: a JSON array, or a comma-separated string as a form sends it. */
function phoneList(value: string | string[] | undefined): string[] {
  if (value === undefined || value === '') return []
  return typeof value === 'string' ? value.split(',').map((phone) => phone.trim()) : value
}

/** A member's change to a group: `action` and what it needs. */
function groupChangeOf(body: Static<typeof schemas.GroupChangeBody>): SandboxGroupChange {
  const { action } = body
  switch (action) {
    case 'add':
    case 'remove':
    case 'promote':
    case 'demote':
      return { action, participants: phoneList(body.participants) }
    case 'subject':
      return { action, subject: needed(body.subject, 'subject') }
    case 'description':
      return { action, description: needed(body.description, 'description') }
    case 'announce':
    case 'restrict':
      return { action, on: needed(body.on, 'on') }
    case 'ephemeral':
      return { action, seconds: needed(body.seconds, 'seconds') }
    case 'leave':
      return { action }
    default:
      throw new SandboxError('invalid_parameter', `Unknown action ${String(action satisfies never)}.`)
  }
}

/** A field only when it was given, so a partial change leaves the rest as it is. */
function given<K extends string, V>(key: K, value: V | undefined): Partial<Record<K, V>> {
  return value === undefined ? {} : ({ [key]: value } as Record<K, V>)
}

function behaviourBody(behaviour: PhoneBehaviour): Record<string, unknown> {
  return {
    reads: behaviour.reads,
    read_after_ms: behaviour.readAfterMs,
    types_before_reply: behaviour.typesBeforeReply,
    online: behaviour.online,
  }
}

function phoneParam(request: FastifyRequest): string {
  return (request.params as { phone?: string }).phone ?? ''
}

function groupParam(request: FastifyRequest): string {
  return (request.params as { group?: string }).group ?? ''
}

/** A label change from the phone: an edit (`name`) or putting it on or off a chat or message (`chat`). */
function labelChangeOf(body: Static<typeof schemas.LabelBody>): SandboxLabelChange {
  const { label, name } = body
  if (name !== undefined) {
    return { label, name, ...given('color', body.color), ...given('deleted', body.deleted) }
  }
  if (body.labeled === undefined)
    throw new SandboxError('missing_parameter', 'give name, or chat and labeled.')
  return {
    label,
    chat: needed(body.chat, 'chat'),
    labeled: body.labeled,
    ...given('message', body.message),
  }
}

type SendBody = Static<typeof schemas.SendBody>

function mediaOf(body: SendBody): SandboxMediaInput | undefined {
  if (body.media_base64 === undefined) return undefined
  const as = body.media_as
  const defaultType =
    as === 'voice_note' ? 'audio/ogg; codecs=opus' : as === 'sticker' ? 'image/webp' : undefined
  return {
    data: Buffer.from(body.media_base64, 'base64'),
    mimetype: body.mimetype ?? defaultType ?? 'application/octet-stream',
    filename: body.filename,
    caption: body.caption,
    as,
    seconds: body.seconds,
    viewOnce: body.view_once === true,
  }
}

/** `reaction: {id, emoji}`, `edit: {id, text}`, `revoke: {id}`, `vote`: acting on an earlier message. */
function actionsOf(body: SendBody): Pick<SandboxSendInput, 'reaction' | 'edit' | 'revoke' | 'vote'> {
  const { reaction, vote } = body
  return {
    reaction: reaction && { id: reaction.id, emoji: reaction.emoji ?? '' },
    edit: body.edit,
    revoke: body.revoke,
    vote: vote && {
      id: vote.id,
      options: vote.options ?? [],
      ...(vote.unknown_poll !== undefined && { unknownPoll: vote.unknown_poll }),
    },
  }
}

function contactsOf(body: SendBody): SandboxContactInput[] | undefined {
  return body.contacts?.map(({ name, phone }) => ({ name, phone }))
}

/**
 * The sandbox control API of design §10, relative to the prefix the caller registers it under. Every
 * parameter comes from the JSON (or form) body, checked against the schema the route declares; failures are
 * SandboxErrors for the caller's envelope error handler.
 */
export function registerSandboxRoutes(app: FastifyInstance, control: SandboxControl): void {
  registerChannelRoutes(app, control.channels)
  getRoute(
    app,
    '/endpoint',
    {
      summary: 'Where Baileys clients reach the network, and what they trust.',
      answer: schemas.EndpointAnswer,
    },
    () => ({
      status: 'success',
      websocket: control.endpoint.wsUrl,
      root_key: control.endpoint.rootPublicKey.toString('hex'),
      media_ca: control.endpoint.mediaCaPem,
      version_url: control.endpoint.versionUrl,
    }),
  )

  postRoute(
    app,
    '/link',
    {
      summary: 'A phone scans a QR code: that device is linked.',
      body: schemas.LinkBody,
      answer: schemas.LinkAnswer,
    },
    async (body) => ({ status: 'success', ...(await control.link(body)) }),
  )

  postRoute(
    app,
    '/accounts/:phone/pairing_code',
    {
      summary: 'The phone enters the pairing code a device shows for its number.',
      body: schemas.PairingCodeBody,
      answer: schemas.PairingCodeAnswer,
    },
    async (body, request) => ({
      status: 'success',
      ...(await control.enterPairingCode(phoneParam(request), body)),
    }),
  )

  getRoute(app, '/accounts', { summary: 'The simulated accounts.', answer: schemas.AccountsAnswer }, () => ({
    status: 'success',
    accounts: control.accounts(),
  }))

  postRoute(
    app,
    '/accounts',
    {
      summary: 'Adds a simulated account (an existing one is updated).',
      body: schemas.AddAccountBody,
      answer: schemas.AddAccountAnswer,
    },
    async (body) => ({
      status: 'success',
      ...(await control.addAccount({
        phone: body.phone,
        name: body.name,
        autoReply: body.auto_reply,
        about: body.about,
        groupsAdd: body.groups_add,
        business: body.business,
      })),
    }),
  )

  getRoute(
    app,
    '/accounts/:phone/messages',
    { summary: 'What the account’s phone received, decrypted, oldest first.', answer: schemas.InboxAnswer },
    (request) => ({ status: 'success', messages: control.inbox(phoneParam(request)) }),
  )

  postRoute(
    app,
    '/accounts/:phone/calls',
    { summary: 'The phone calls another account.', body: schemas.CallBody, answer: schemas.CallAnswer },
    (body, request) => ({ status: 'success', id: control.call(phoneParam(request), body).id }),
  )

  getRoute(
    app,
    '/accounts/:phone/calls',
    { summary: 'The calls the account’s phone made.', answer: schemas.CallsAnswer },
    (request) => ({ status: 'success', calls: control.calls(phoneParam(request)) }),
  )

  postRoute(
    app,
    '/accounts/:phone/behaviour',
    {
      summary: 'Changes how the phone reads, types and goes online (what is not given stays).',
      body: schemas.BehaviourBody,
      answer: schemas.BehaviourAnswer,
    },
    async (body, request) => {
      const behaviour = await control.setBehaviour(phoneParam(request), {
        ...given('reads', body.reads),
        ...given('readAfterMs', body.read_after_ms),
        ...given('typesBeforeReply', body.types_before_reply),
        ...given('online', body.online),
      })
      return { status: 'success', behaviour: behaviourBody(behaviour) }
    },
  )

  getRoute(
    app,
    '/accounts/:phone/behaviour',
    { summary: 'How the phone reads, types and goes online.', answer: schemas.BehaviourAnswer },
    (request) => {
      const phone = phoneParam(request)
      const account = control.accounts().find((known) => known.phone === phone)
      if (!account) throw new SandboxError('account_not_found', `No sandbox account has the number ${phone}.`)
      return { status: 'success', behaviour: behaviourBody(account.behaviour) }
    },
  )

  postRoute(
    app,
    '/accounts/:phone/number',
    {
      summary: 'Whether the account shares its phone number with another one.',
      body: schemas.NumberBody,
      answer: schemas.NumberAnswer,
    },
    async (body, request) => ({
      status: 'success',
      hidden_from: (await control.shareNumber(phoneParam(request), body)).hiddenFrom,
    }),
  )

  getRoute(
    app,
    '/accounts/:phone/reads',
    { summary: 'Ids of messages the account sent that their recipient read.', answer: schemas.ReadsAnswer },
    (request) => ({ status: 'success', ids: control.reads(phoneParam(request)) }),
  )

  postRoute(
    app,
    '/accounts/:phone/read',
    { summary: 'The phone reads messages it received.', body: schemas.ReadBody, answer: schemas.ReadAnswer },
    (body, request) => ({ status: 'success', ...control.read(phoneParam(request), body.ids) }),
  )

  getRoute(
    app,
    '/accounts/:phone/receipts',
    { summary: 'The receipts the account’s linked devices sent.', answer: schemas.ReceiptsAnswer },
    (request) => ({
      status: 'success',
      receipts: control.receipts(phoneParam(request)).map(({ device, loggedInAt, at, type, ids }) => ({
        device,
        logged_in_at: loggedInAt,
        at,
        type,
        ids,
      })),
    }),
  )

  getRoute(
    app,
    '/accounts/:phone/presence',
    { summary: 'The account’s availability and the chat states it saw.', answer: schemas.PresenceAnswer },
    (request) => {
      const { online, chatStates } = control.presence(phoneParam(request))
      return { status: 'success', online, chat_states: chatStates }
    },
  )

  postRoute(
    app,
    '/accounts/:phone/presence',
    {
      summary: 'The phone goes online or offline, or types, records or pauses in a chat.',
      body: schemas.PresenceBody,
      answer: schemas.Done,
    },
    (body, request) => {
      control.showPresence(phoneParam(request), body)
      return { status: 'success' }
    },
  )

  getRoute(
    app,
    '/accounts/:phone/app-state',
    { summary: 'The account’s app state as the network read it.', answer: schemas.AppStateAnswer },
    (request) => ({ status: 'success', ...control.appState(phoneParam(request)) }),
  )

  postRoute(
    app,
    '/accounts/:phone/labels',
    {
      summary: 'A Business phone edits a label, or puts one on or off a chat or a message.',
      body: schemas.LabelBody,
      answer: schemas.Done,
    },
    async (body, request) => {
      await control.changeLabel(phoneParam(request), labelChangeOf(body))
      return { status: 'success' }
    },
  )

  postRoute(
    app,
    '/accounts/:phone/app-state',
    {
      summary: 'The phone archives, pins, mutes, marks, clears or deletes a chat, or saves a name.',
      body: schemas.AppStateBody,
      answer: schemas.Done,
    },
    async (body, request) => {
      await control.changeAppState(phoneParam(request), {
        chat: body.chat,
        archived: body.archived,
        pinned: body.pinned,
        mutedUntil: body.muted_until,
        unread: body.unread,
        savedName: body.saved_name,
        clear: body.clear,
        delete: body.delete,
      })
      return { status: 'success' }
    },
  )

  postRoute(
    app,
    '/accounts/:phone/messages',
    {
      summary: 'The phone sends a message to a number or a group.',
      body: schemas.SendBody,
      answer: schemas.SendAnswer,
    },
    async (body, request) => {
      const { id } = await control.send(phoneParam(request), {
        to: body.to,
        text: body.text,
        media: mediaOf(body),
        location: body.location,
        contacts: contactsOf(body),
        linkPreview: body.link_preview,
        replyTo: body.reply_to,
        ...actionsOf(body),
        mentions: body.mentions === undefined ? undefined : phoneList(body.mentions),
        addressing: body.addressing,
      })
      return { status: 'success', id }
    },
  )

  postRoute(
    app,
    '/groups',
    { summary: 'Makes a group.', body: schemas.GroupBody, answer: schemas.GroupCreatedAnswer },
    async (body) => {
      const { groupId } = await control.createGroup({
        subject: body.subject,
        participants: phoneList(body.participants),
      })
      return { status: 'success', group_id: groupId }
    },
  )

  getRoute(
    app,
    '/groups/:group',
    { summary: 'A group as the network keeps it.', answer: schemas.GroupAnswer },
    (request) => ({
      status: 'success',
      group: control.group(groupParam(request)),
    }),
  )

  postRoute(
    app,
    '/accounts/:phone/groups/:group',
    {
      summary: 'The phone changes a group it is in, as its own app would.',
      body: schemas.GroupChangeBody,
      answer: schemas.GroupChangeAnswer,
    },
    async (body, request) => ({
      status: 'success',
      results: (await control.changeGroup(phoneParam(request), groupParam(request), groupChangeOf(body)))
        .results,
    }),
  )

  postRoute(
    app,
    '/accounts/:phone/groups/join',
    {
      summary: 'The phone joins a group by an invite code.',
      body: schemas.JoinBody,
      answer: schemas.JoinAnswer,
    },
    async (body, request) => ({
      status: 'success',
      group_id: (await control.joinGroup(phoneParam(request), body.code)).groupId,
    }),
  )

  postRoute(
    app,
    '/client-version',
    {
      summary: 'Moves the client versions announced and accepted, as a web release does.',
      body: schemas.ClientVersionBody,
      answer: schemas.ClientVersionAnswer,
    },
    async (body) => ({ status: 'success', ...(await control.clientVersion(body)) }),
  )

  getRoute(
    app,
    '/media',
    { summary: 'How long the media host keeps a file.', answer: schemas.MediaLifetimeAnswer },
    async () => ({ status: 'success', lifetime_ms: (await control.mediaLifetime({})).lifetimeMs }),
  )

  postRoute(
    app,
    '/media',
    {
      summary: 'How long the media host keeps a file uploaded from now on.',
      body: schemas.MediaLifetimeBody,
      answer: schemas.MediaLifetimeAnswer,
    },
    async (body) => ({
      status: 'success',
      lifetime_ms: (await control.mediaLifetime({ lifetimeMs: body.lifetime_ms })).lifetimeMs,
    }),
  )

  postRoute(
    app,
    '/accounts/:phone/media/forget',
    { summary: 'The phone deletes the media files it holds.', answer: schemas.ForgetMediaAnswer },
    async (_body, request) => ({ status: 'success', ...(await control.forgetMedia(phoneParam(request))) }),
  )

  postRoute(
    app,
    '/accounts/:phone/unlink',
    { summary: 'The phone removes all its linked devices.', answer: schemas.Done },
    async (_body, request) => {
      await control.unlink(phoneParam(request))
      return { status: 'success' }
    },
  )

  postRoute(
    app,
    '/accounts/:phone/picture',
    {
      summary: 'The phone sets a new profile picture.',
      body: schemas.PictureBody,
      answer: schemas.PictureAnswer,
    },
    async (body, request) => ({
      status: 'success',
      url: (await control.setPicture(phoneParam(request), Buffer.from(body.media_base64, 'base64'))).url,
    }),
  )

  postRoute(
    app,
    '/accounts/:phone/drop',
    {
      summary: 'Cuts the network under the account’s connected linked devices.',
      body: schemas.DropBody,
      answer: schemas.Done,
    },
    async (body, request) => {
      await control.drop(phoneParam(request), body.mode, body.down_for_ms)
      return { status: 'success' }
    },
  )

  postRoute(
    app,
    '/drop',
    {
      summary: 'Cuts the network under every connected linked device of every account at once.',
      body: schemas.DropAllBody,
      answer: schemas.DropAllAnswer,
    },
    (body) => ({ status: 'success', devices: control.dropAll(body.mode) }),
  )

  postRoute(
    app,
    '/accounts/:phone/fail_login',
    {
      summary: 'The next login of the account’s linked devices fails with this reason.',
      body: schemas.FailLoginBody,
      answer: schemas.Done,
    },
    (body, request) => {
      control.failNextLogin(phoneParam(request), body.code)
      return { status: 'success' }
    },
  )

  postRoute(
    app,
    '/accounts/:phone/replace',
    {
      summary: 'Another session logs in with the account’s credentials (440 replaced).',
      answer: schemas.ReplaceAnswer,
    },
    (_body, request) => ({ status: 'success', devices: control.replace(phoneParam(request)) }),
  )
}
