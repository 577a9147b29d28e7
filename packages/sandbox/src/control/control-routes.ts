import type { FastifyInstance, FastifyRequest } from 'fastify'
import type { PhoneBehaviour, PhoneOnline, PhoneReads } from '../accounts/phone-behaviour'
import { SandboxError } from '../errors'
import { registerChannelRoutes } from './channel-control'
import type { SandboxLabelChange } from './app-state-control'
import {
  isMediaPresentation,
  MEDIA_PRESENTATIONS,
  type SandboxContactInput,
  type SandboxLinkPreviewInput,
  type SandboxLocationInput,
  type SandboxMediaInput,
} from '../messages/outgoing-content'
import {
  SANDBOX_PRESENCE_STATES,
  type SandboxControl,
  type SandboxGroupChange,
  type SandboxPresenceState,
  type SandboxSendInput,
} from './control-types'

type Body = Record<string, unknown>

function bodyOf(request: FastifyRequest): Body {
  const body = request.body
  return body && typeof body === 'object' && !Array.isArray(body) ? (body as Body) : {}
}

function optionalString(body: Body, field: string): string | undefined {
  const value = body[field]
  if (value === undefined || value === null || value === '') return undefined
  if (typeof value !== 'string') throw new SandboxError('invalid_parameter', `${field} must be a string.`)
  return value
}

function requiredString(body: Body, field: string): string {
  const value = optionalString(body, field)
  if (value === undefined) throw new SandboxError('missing_parameter', `${field} is required.`)
  return value
}

function groupsAddOf(body: Body): 'all' | 'contacts' | undefined {
  const value = optionalString(body, 'groups_add')
  if (value !== undefined && value !== 'all' && value !== 'contacts') {
    throw new SandboxError('invalid_parameter', 'groups_add must be "all" or "contacts".')
  }
  return value
}

/** A member's change to a group: `action` and what it needs. */
function groupChangeOf(body: Body): SandboxGroupChange {
  const action = requiredString(body, 'action')
  switch (action) {
    case 'add':
    case 'remove':
    case 'promote':
    case 'demote':
      return { action, participants: phoneList(body.participants, 'participants') }
    case 'subject':
      return { action, subject: requiredString(body, 'subject') }
    case 'description':
      return { action, description: body.description === null ? null : requiredString(body, 'description') }
    case 'announce':
    case 'restrict':
      if (typeof body.on !== 'boolean')
        throw new SandboxError('invalid_parameter', 'on must be true or false.')
      return { action, on: body.on }
    case 'ephemeral': {
      const seconds = body.seconds
      if (typeof seconds !== 'number' || !Number.isInteger(seconds) || seconds < 0)
        throw new SandboxError(
          'invalid_parameter',
          'seconds must be a whole number of seconds, 0 to turn it off.',
        )
      return { action, seconds }
    }
    case 'leave':
      return { action }
    default:
      throw new SandboxError(
        'invalid_parameter',
        'action must be add, remove, promote, demote, subject, description, announce, restrict, ephemeral or leave.',
      )
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

function optionalNumber(body: Body, field: string, label = field): number | undefined {
  const value = body[field]
  if (value === undefined || value === null || value === '') return undefined
  if (typeof value !== 'number') throw new SandboxError('invalid_parameter', `${label} must be a number.`)
  return value
}

function optionalBoolean(body: Body, field: string): boolean | undefined {
  const value = body[field]
  if (value === undefined) return undefined
  if (typeof value !== 'boolean')
    throw new SandboxError('invalid_parameter', `${field} must be true or false.`)
  return value
}

/** A label change from the phone: an edit (`name`) or putting it on or off a chat or message (`chat`). */
function labelChangeOf(body: Body): SandboxLabelChange {
  const label = requiredString(body, 'label')
  const name = optionalString(body, 'name')
  if (name !== undefined) {
    return {
      label,
      name,
      ...given('color', optionalNumber(body, 'color')),
      ...given('deleted', optionalBoolean(body, 'deleted')),
    }
  }
  const labeled = optionalBoolean(body, 'labeled')
  if (labeled === undefined) throw new SandboxError('missing_parameter', 'give name, or chat and labeled.')
  return {
    label,
    chat: requiredString(body, 'chat'),
    labeled,
    ...given('message', optionalString(body, 'message')),
  }
}

function optionalObject(body: Body, field: string): Body | undefined {
  const value = body[field]
  if (value === undefined || value === null) return undefined
  if (typeof value !== 'object' || Array.isArray(value))
    throw new SandboxError('invalid_parameter', `${field} must be an object.`)
  return value as Body
}

function mediaOf(body: Body): SandboxMediaInput | undefined {
  const base64 = optionalString(body, 'media_base64')
  if (base64 === undefined) return undefined
  if (!/^[A-Za-z0-9+/=\s_-]*$/.test(base64))
    throw new SandboxError('invalid_parameter', 'media_base64 must be base64.')
  const as = optionalString(body, 'media_as')
  if (as !== undefined && !isMediaPresentation(as)) {
    throw new SandboxError('invalid_parameter', `media_as must be one of ${MEDIA_PRESENTATIONS.join(', ')}.`)
  }
  const viewOnce = body.view_once
  if (viewOnce !== undefined && typeof viewOnce !== 'boolean')
    throw new SandboxError('invalid_parameter', 'view_once must be true or false.')
  const defaultType =
    as === 'voice_note' ? 'audio/ogg; codecs=opus' : as === 'sticker' ? 'image/webp' : undefined
  return {
    data: Buffer.from(base64, 'base64'),
    mimetype: optionalString(body, 'mimetype') ?? defaultType ?? 'application/octet-stream',
    filename: optionalString(body, 'filename'),
    caption: optionalString(body, 'caption'),
    as,
    seconds: optionalNumber(body, 'seconds'),
    viewOnce: viewOnce === true,
  }
}

function locationOf(body: Body): SandboxLocationInput | undefined {
  const location = optionalObject(body, 'location')
  if (!location) return undefined
  const coordinate = (field: string): number => {
    const value = optionalNumber(location, field, `location.${field}`)
    if (value === undefined) throw new SandboxError('missing_parameter', `location.${field} is required.`)
    return value
  }
  return {
    latitude: coordinate('latitude'),
    longitude: coordinate('longitude'),
    name: optionalString(location, 'name'),
    address: optionalString(location, 'address'),
  }
}

function contactsOf(body: Body): SandboxContactInput[] | undefined {
  const contacts = body.contacts
  if (contacts === undefined || contacts === null) return undefined
  if (!Array.isArray(contacts))
    throw new SandboxError('invalid_parameter', 'contacts must be a list of {name, phone}.')
  return contacts.map((card: unknown) => {
    if (!card || typeof card !== 'object' || Array.isArray(card))
      throw new SandboxError('invalid_parameter', 'contacts must be a list of {name, phone}.')
    return { name: requiredString(card as Body, 'name'), phone: requiredString(card as Body, 'phone') }
  })
}

function linkPreviewOf(body: Body): SandboxLinkPreviewInput | undefined {
  const preview = optionalObject(body, 'link_preview')
  if (!preview) return undefined
  return {
    url: requiredString(preview, 'url'),
    title: requiredString(preview, 'title'),
    description: optionalString(preview, 'description'),
  }
}

/** `reaction: {id, emoji}`, `edit: {id, text}`, `revoke: {id}`: acting on an earlier message. */
function actionsOf(body: Body): Pick<SandboxSendInput, 'reaction' | 'edit' | 'revoke' | 'vote'> {
  const vote = optionalObject(body, 'vote')
  const reaction = optionalObject(body, 'reaction')
  const edit = optionalObject(body, 'edit')
  const revoke = optionalObject(body, 'revoke')
  return {
    reaction: reaction && {
      id: requiredString(reaction, 'id'),
      emoji: optionalString(reaction, 'emoji') ?? '',
    },
    edit: edit && { id: requiredString(edit, 'id'), text: requiredString(edit, 'text') },
    revoke: revoke && { id: requiredString(revoke, 'id') },
    vote: vote && {
      id: requiredString(vote, 'id'),
      options: vote.options === undefined ? [] : optionList(vote.options, 'vote.options'),
      ...(vote.unknown_poll !== undefined && { unknownPoll: unknownPoll(vote.unknown_poll) }),
    },
  }
}

function unknownPoll(value: unknown): boolean {
  if (typeof value !== 'boolean')
    throw new SandboxError('invalid_parameter', 'vote.unknown_poll must be a boolean.')
  return value
}

/** A list of strings, as JSON. */
function optionList(value: unknown, field: string): string[] {
  if (Array.isArray(value) && value.every((item) => typeof item === 'string')) return value
  throw new SandboxError('invalid_parameter', `${field} must be a list of option names.`)
}

/** A list of phone numbers: a JSON array, or a comma-separated string as a form sends it. */
function phoneList(value: unknown, field: string): string[] {
  if (value === undefined || value === null || value === '') return []
  if (typeof value === 'string') return value.split(',').map((phone) => phone.trim())
  if (Array.isArray(value) && value.every((phone) => typeof phone === 'string')) return value
  throw new SandboxError('invalid_parameter', `${field} must be a list of phone numbers.`)
}

/**
 * The sandbox control API of design §10, relative to the prefix the caller registers it under. Every
 * parameter comes from the JSON body; failures are SandboxErrors for the caller's envelope error handler.
 */
export function registerSandboxRoutes(app: FastifyInstance, control: SandboxControl): void {
  registerChannelRoutes(app, control.channels)
  app.get('/endpoint', async () => ({
    status: 'success',
    websocket: control.endpoint.wsUrl,
    root_key: control.endpoint.rootPublicKey.toString('hex'),
    media_ca: control.endpoint.mediaCaPem,
    version_url: control.endpoint.versionUrl,
  }))

  app.post('/link', async (request) => {
    const body = bodyOf(request)
    const { jid, lid } = await control.link({
      qr: requiredString(body, 'qr'),
      phone: requiredString(body, 'phone'),
      name: optionalString(body, 'name'),
    })
    return { status: 'success', jid, lid }
  })

  app.post('/accounts/:phone/pairing_code', async (request) => {
    const body = bodyOf(request)
    const { jid, lid } = await control.enterPairingCode(phoneParam(request), {
      code: requiredString(body, 'code'),
      name: optionalString(body, 'name'),
    })
    return { status: 'success', jid, lid }
  })

  app.get('/accounts', async () => ({ status: 'success', accounts: control.accounts() }))

  app.post('/accounts', async (request) => {
    const body = bodyOf(request)
    const autoReply = optionalString(body, 'auto_reply')
    if (autoReply !== undefined && autoReply !== 'echo') {
      throw new SandboxError('invalid_parameter', 'auto_reply must be "echo" or absent.')
    }
    const account = await control.addAccount({
      phone: requiredString(body, 'phone'),
      name: optionalString(body, 'name'),
      autoReply,
      about: optionalString(body, 'about'),
      groupsAdd: groupsAddOf(body),
      business: optionalBoolean(body, 'business'),
    })
    return { status: 'success', ...account }
  })

  app.get('/accounts/:phone/messages', async (request) => ({
    status: 'success',
    messages: control.inbox(phoneParam(request)),
  }))

  app.post('/accounts/:phone/calls', async (request) => {
    const body = bodyOf(request)
    const video = body.video
    if (video !== undefined && typeof video !== 'boolean') {
      throw new SandboxError('invalid_parameter', 'video must be true or false.')
    }
    const { id } = control.call(phoneParam(request), { to: requiredString(body, 'to'), video })
    return { status: 'success', id }
  })

  app.get('/accounts/:phone/calls', async (request) => ({
    status: 'success',
    calls: control.calls(phoneParam(request)),
  }))

  app.post('/accounts/:phone/behaviour', async (request) => {
    const body = bodyOf(request)
    const types = body.types_before_reply
    if (types !== undefined && typeof types !== 'boolean')
      throw new SandboxError('invalid_parameter', 'types_before_reply must be true or false.')
    const behaviour = await control.setBehaviour(phoneParam(request), {
      ...given('reads', optionalString(body, 'reads') as PhoneReads | undefined),
      ...given('readAfterMs', optionalNumber(body, 'read_after_ms')),
      ...given('typesBeforeReply', types),
      ...given('online', optionalString(body, 'online') as PhoneOnline | undefined),
    })
    return { status: 'success', behaviour: behaviourBody(behaviour) }
  })

  app.get('/accounts/:phone/behaviour', async (request) => {
    const phone = phoneParam(request)
    const account = control.accounts().find((known) => known.phone === phone)
    if (!account) throw new SandboxError('account_not_found', `No sandbox account has the number ${phone}.`)
    return { status: 'success', behaviour: behaviourBody(account.behaviour) }
  })

  app.post('/accounts/:phone/number', async (request) => {
    const body = bodyOf(request)
    if (body.shared === undefined) throw new SandboxError('missing_parameter', 'shared is required.')
    if (typeof body.shared !== 'boolean')
      throw new SandboxError('invalid_parameter', 'shared must be true or false.')
    const { hiddenFrom } = await control.shareNumber(phoneParam(request), {
      with: requiredString(body, 'with'),
      shared: body.shared,
    })
    return { status: 'success', hidden_from: hiddenFrom }
  })

  app.get('/accounts/:phone/reads', async (request) => ({
    status: 'success',
    ids: control.reads(phoneParam(request)),
  }))

  app.post('/accounts/:phone/read', async (request) => {
    const ids = bodyOf(request).ids
    if (!Array.isArray(ids) || !ids.every((id) => typeof id === 'string'))
      throw new SandboxError('invalid_parameter', 'ids must be a list of message ids.')
    return { status: 'success', ...control.read(phoneParam(request), ids) }
  })

  app.get('/accounts/:phone/receipts', async (request) => ({
    status: 'success',
    receipts: control.receipts(phoneParam(request)).map(({ device, loggedInAt, at, type, ids }) => ({
      device,
      logged_in_at: loggedInAt,
      at,
      type,
      ids,
    })),
  }))

  app.get('/accounts/:phone/presence', async (request) => {
    const { online, chatStates } = control.presence(phoneParam(request))
    return { status: 'success', online, chat_states: chatStates }
  })

  app.post('/accounts/:phone/presence', async (request) => {
    const body = bodyOf(request)
    const state = requiredString(body, 'state')
    if (!SANDBOX_PRESENCE_STATES.some((known) => known === state)) {
      throw new SandboxError(
        'invalid_parameter',
        `state must be one of ${SANDBOX_PRESENCE_STATES.join(', ')}.`,
      )
    }
    control.showPresence(phoneParam(request), {
      state: state as SandboxPresenceState,
      to: optionalString(body, 'to'),
    })
    return { status: 'success' }
  })

  app.get('/accounts/:phone/app-state', async (request) => ({
    status: 'success',
    ...control.appState(phoneParam(request)),
  }))

  app.post('/accounts/:phone/labels', async (request) => {
    await control.changeLabel(phoneParam(request), labelChangeOf(bodyOf(request)))
    return { status: 'success' }
  })

  app.post('/accounts/:phone/app-state', async (request) => {
    const body = bodyOf(request)
    const flag = (field: string): boolean | undefined => {
      const value = body[field]
      if (value === undefined) return undefined
      if (typeof value !== 'boolean')
        throw new SandboxError('invalid_parameter', `${field} must be true or false.`)
      return value
    }
    await control.changeAppState(phoneParam(request), {
      chat: requiredString(body, 'chat'),
      archived: flag('archived'),
      pinned: flag('pinned'),
      mutedUntil: body.muted_until === null ? null : optionalNumber(body, 'muted_until'),
      unread: flag('unread'),
      savedName: optionalString(body, 'saved_name'),
      clear: flag('clear'),
      delete: flag('delete'),
    })
    return { status: 'success' }
  })

  app.post('/accounts/:phone/messages', async (request) => {
    const body = bodyOf(request)
    const addressing = optionalString(body, 'addressing')
    if (addressing !== undefined && addressing !== 'pn' && addressing !== 'lid') {
      throw new SandboxError('invalid_parameter', 'addressing must be "pn" or "lid".')
    }
    const { id } = await control.send(phoneParam(request), {
      to: requiredString(body, 'to'),
      text: optionalString(body, 'text'),
      media: mediaOf(body),
      location: locationOf(body),
      contacts: contactsOf(body),
      linkPreview: linkPreviewOf(body),
      replyTo: optionalString(body, 'reply_to'),
      ...actionsOf(body),
      mentions: body.mentions === undefined ? undefined : phoneList(body.mentions, 'mentions'),
      addressing,
    })
    return { status: 'success', id }
  })

  app.post('/groups', async (request) => {
    const body = bodyOf(request)
    const { groupId } = await control.createGroup({
      subject: requiredString(body, 'subject'),
      participants: phoneList(body.participants, 'participants'),
    })
    return { status: 'success', group_id: groupId }
  })

  app.get('/groups/:group', async (request) => ({
    status: 'success',
    group: control.group((request.params as { group: string }).group),
  }))

  app.post('/accounts/:phone/groups/:group', async (request) => {
    const { results } = await control.changeGroup(
      phoneParam(request),
      (request.params as { group: string }).group,
      groupChangeOf(bodyOf(request)),
    )
    return { status: 'success', results }
  })

  app.post('/accounts/:phone/groups/join', async (request) => {
    const { groupId } = await control.joinGroup(phoneParam(request), requiredString(bodyOf(request), 'code'))
    return { status: 'success', group_id: groupId }
  })

  app.post('/client-version', async (request) => {
    const body = bodyOf(request)
    const minimum = body.minimum === null ? null : optionalString(body, 'minimum')
    return {
      status: 'success',
      ...(await control.clientVersion({ current: optionalString(body, 'current'), minimum })),
    }
  })

  app.get('/media', async () => ({
    status: 'success',
    lifetime_ms: (await control.mediaLifetime({})).lifetimeMs,
  }))

  app.post('/media', async (request) => {
    const lifetimeMs = optionalNumber(bodyOf(request), 'lifetime_ms')
    if (lifetimeMs === undefined) throw new SandboxError('missing_parameter', 'lifetime_ms is required.')
    return { status: 'success', lifetime_ms: (await control.mediaLifetime({ lifetimeMs })).lifetimeMs }
  })

  app.post('/accounts/:phone/media/forget', async (request) => ({
    status: 'success',
    ...(await control.forgetMedia(phoneParam(request))),
  }))

  app.post('/accounts/:phone/unlink', async (request) => {
    await control.unlink(phoneParam(request))
    return { status: 'success' }
  })

  app.post('/accounts/:phone/picture', async (request) => {
    const base64 = requiredString(bodyOf(request), 'media_base64')
    if (!/^[A-Za-z0-9+/=\s_-]*$/.test(base64))
      throw new SandboxError('invalid_parameter', 'media_base64 must be base64.')
    const { url } = await control.setPicture(phoneParam(request), Buffer.from(base64, 'base64'))
    return { status: 'success', url }
  })

  app.post('/accounts/:phone/drop', async (request) => {
    const mode = requiredString(bodyOf(request), 'mode')
    if (mode !== 'close' && mode !== 'silent')
      throw new SandboxError('invalid_parameter', 'mode must be "close" or "silent".')
    await control.drop(phoneParam(request), mode, optionalNumber(bodyOf(request), 'down_for_ms'))
    return { status: 'success' }
  })

  app.post('/drop', async (request) => {
    const mode = requiredString(bodyOf(request), 'mode')
    if (mode !== 'close' && mode !== 'silent')
      throw new SandboxError('invalid_parameter', 'mode must be "close" or "silent".')
    return { status: 'success', devices: control.dropAll(mode) }
  })

  app.post('/accounts/:phone/fail_login', async (request) => {
    const code = optionalNumber(bodyOf(request), 'code')
    if (code === undefined) throw new SandboxError('invalid_parameter', 'code is required.')
    control.failNextLogin(phoneParam(request), code)
    return { status: 'success' }
  })

  app.post('/accounts/:phone/replace', async (request) => ({
    status: 'success',
    devices: control.replace(phoneParam(request)),
  }))
}
