import { SandboxError } from '../errors'
import { createChannelControl } from './channel-control'
import { appStateOf, changeAppStateFromPhone, changeLabelFromPhone } from './app-state-control'
import type { Account } from '../accounts/account'
import { parseClientVersion } from '../accounts/client-version'
import {
  MAX_READ_AFTER_MS,
  PHONE_ONLINE,
  PHONE_READS,
  type PhoneBehaviour,
} from '../accounts/phone-behaviour'
import type { PairingRegistry } from '../accounts/pairing'
import {
  changeParticipants,
  changeSetting,
  GroupRefusal,
  joinByInvite,
  leaveGroup,
  setDescription,
  setGroupEphemeral,
  setSubject,
} from '../groups/group-changes'
import { announceGroupCreated } from '../groups/group-notifications'
import type { Group } from '../groups/group-registry'
import {
  dropConnections,
  failNextLogin,
  keepNetworkDown,
  LOGIN_FAILURE_REASONS,
  MAX_OUTAGE_MS,
  replaceDevices,
  unlinkDevices,
  type DropMode,
} from '../faults/faults'
import { readAsContact } from '../messages/contact-behaviour'
import { STATUS_BROADCAST } from '../messages/status-broadcast'
import { sendFromPhone, type PhoneSendTarget } from '../messages/phone-sender'
import type { SandboxNetwork } from '../network'
import { deviceAddress } from '../signal/addresses'
import type {
  SandboxControl,
  SandboxEndpoint,
  SandboxGroupChange,
  SandboxGroupInfo,
  SandboxParticipantResult,
  SandboxSendInput,
} from './control-types'
import { assertPhone, PHONE } from './phone-number'
import { contentOf } from './send-content'

/** A whole behaviour, checked: a value the sandbox does not know is refused before anything changes. */
function behaviourOf(behaviour: PhoneBehaviour): PhoneBehaviour {
  const { reads, readAfterMs, typesBeforeReply, online } = behaviour
  if (!PHONE_READS.includes(reads))
    throw new SandboxError('invalid_parameter', `reads must be one of ${PHONE_READS.join(', ')}.`)
  if (!PHONE_ONLINE.includes(online))
    throw new SandboxError('invalid_parameter', `online must be one of ${PHONE_ONLINE.join(', ')}.`)
  if (!(Number.isInteger(readAfterMs) && readAfterMs >= 0 && readAfterMs <= MAX_READ_AFTER_MS))
    throw new SandboxError(
      'invalid_parameter',
      `read_after_ms must be a whole number of milliseconds from 0 to ${MAX_READ_AFTER_MS}.`,
    )
  if (typeof typesBeforeReply !== 'boolean')
    throw new SandboxError('invalid_parameter', 'types_before_reply must be true or false.')
  return { reads, readAfterMs, typesBeforeReply, online }
}

/** The longest media lifetime a test may set: 90 days. */
const MAX_MEDIA_LIFETIME_MS = 90 * 86_400_000

function accountOf(network: SandboxNetwork, phone: string): Account {
  const account = network.directory.get(assertPhone(phone))
  if (!account) throw new SandboxError('account_not_found', `No sandbox account has the number ${phone}.`)
  return account
}

function targetOf(network: SandboxNetwork, sender: Account, to: string): PhoneSendTarget {
  // A status update: to the phone's contacts, as a sender-key message to status@broadcast.
  if (to === STATUS_BROADCAST) {
    const audience = network.statusBroadcast.audienceOf(sender)
    if (audience.members.length < 2)
      throw new SandboxError('no_recipients', `${sender.phone} has no contacts to post a status to.`)
    return { group: audience }
  }
  if (to.endsWith('@g.us')) {
    const group = network.groups.get(to)
    if (!group) throw new SandboxError('recipient_not_found', `No sandbox group ${to} exists.`)
    if (!group.has(sender))
      throw new SandboxError('invalid_parameter', `${sender.phone} is not a member of ${to}.`)
    if (group.announce && !group.isAdmin(sender))
      throw new SandboxError('conflict', `Only admins send to ${to}, and ${sender.phone} is not one.`)
    return { group }
  }
  const resolved = to.includes('@') ? network.directory.resolve(to) : undefined
  const account = resolved?.account ?? (PHONE.test(to) ? network.directory.get(to) : undefined)
  if (!account) {
    if (!to.includes('@') && !PHONE.test(to)) {
      throw new SandboxError(
        'invalid_parameter',
        'to must be a phone number (digits with country code) or a group id.',
      )
    }
    throw new SandboxError('recipient_not_found', `The number ${to} is not on the sandbox network.`)
  }
  return { account }
}

function groupOf(network: SandboxNetwork, groupId: string): Group {
  const group = network.groups.get(groupId.includes('@') ? groupId : `${groupId}@g.us`)
  if (!group) throw new SandboxError('recipient_not_found', `No sandbox group ${groupId} exists.`)
  return group
}

function groupInfo(network: SandboxNetwork, group: Group): SandboxGroupInfo {
  return {
    id: group.jid,
    subject: group.subject,
    description: group.description?.text ?? null,
    announce: group.announce,
    restrict: group.restrict,
    ephemeral: group.ephemeral,
    pictureId: network.pictures.get(group.jid)?.id ?? null,
    members: group.members.map(({ account, role }) => ({
      phone: account.phone,
      lid: account.lidJid,
      role: role ?? null,
    })),
    community: group.isCommunity,
    linkedParent: group.linkedParent,
    announcementGroup: group.isAnnouncementGroup,
    linkedGroups: group.isCommunity ? network.groups.linkedTo(group).map((linked) => linked.jid) : [],
  }
}

/** Applies a member's change from its phone; the network's refusal becomes a conflict naming why. */
function applyGroupChange(
  network: SandboxNetwork,
  group: Group,
  actor: Account,
  change: SandboxGroupChange,
): SandboxParticipantResult[] {
  try {
    switch (change.action) {
      case 'add':
      case 'remove':
      case 'promote':
      case 'demote': {
        const targets = change.participants.map((phone) => ({
          jid: `${assertPhone(phone, 'participants')}@s.whatsapp.net`,
          account: network.directory.get(phone),
        }))
        return changeParticipants(group, actor, change.action, targets).map(({ jid, error }) => ({
          phone: jid.split('@')[0] ?? jid,
          error: error ?? null,
        }))
      }
      case 'subject':
        setSubject(group, actor, change.subject)
        return []
      case 'description':
        setDescription(group, actor, change.description)
        return []
      case 'announce':
        changeSetting(group, actor, change.on ? 'announcement' : 'not_announcement')
        return []
      case 'restrict':
        changeSetting(group, actor, change.on ? 'locked' : 'unlocked')
        return []
      case 'ephemeral':
        setGroupEphemeral(group, actor, change.seconds)
        return []
      case 'leave':
        leaveGroup(group, actor)
        return []
    }
  } catch (error) {
    if (error instanceof GroupRefusal)
      throw new SandboxError('conflict', `The network refused: ${error.message}.`)
    throw error
  }
}

/** The typed control surface over a running network. */
export function createSandboxControl(
  network: SandboxNetwork,
  pairing: PairingRegistry,
  endpoint: SandboxEndpoint,
): SandboxControl {
  return {
    channels: createChannelControl(network),
    endpoint,
    events: network.events,

    async link({ qr, phone, name }) {
      if (!qr) throw new SandboxError('missing_parameter', 'qr is required.')
      const account = network.directory.ensure(assertPhone(phone), name)
      const { jid, lid } = await pairing.scan(qr, account)
      await network.state.flushed()
      return { jid, lid }
    },

    async enterPairingCode(phone, { code, name }) {
      if (!code) throw new SandboxError('missing_parameter', 'code is required.')
      const account = network.directory.ensure(assertPhone(phone), name)
      const { jid, lid } = await pairing.enterCode(code, account)
      await network.state.flushed()
      return { jid, lid }
    },

    async addAccount({ phone, name, autoReply, about, groupsAdd, business }) {
      const account = network.directory.ensure(assertPhone(phone), name, autoReply)
      if (about !== undefined) account.setAbout(about)
      if (business !== undefined) account.setBusiness(business)
      if (groupsAdd !== undefined) account.setPrivacy('groupadd', groupsAdd)
      await network.state.flushed()
      return { phone: account.phone, jid: account.pnJid, lid: account.lidJid }
    },

    accounts() {
      return network.directory.all().map((account) => ({
        phone: account.phone,
        jid: account.pnJid,
        lid: account.lidJid,
        name: account.name,
        autoReply: account.autoReply ?? null,
        linkedDevices: account.activeDevices().map((device) => device.id),
        behaviour: account.behaviour,
        business: account.business,
      }))
    },

    async setBehaviour(phone, input) {
      const account = accountOf(network, phone)
      const behaviour = behaviourOf({ ...account.behaviour, ...input })
      account.setBehaviour(behaviour)
      if (behaviour.online === 'always') network.presence.setAvailable(account, true)
      else if (network.presence.availability(account.phone)) network.presence.setAvailable(account, false)
      await network.state.flushed()
      return behaviour
    },

    async shareNumber(phone, input) {
      const account = accountOf(network, phone)
      const other = accountOf(network, input.with)
      if (other === account)
        throw new SandboxError('invalid_parameter', 'with must be another account than the one sharing.')
      account.setNumberShared(other.phone, input.shared)
      await network.state.flushed()
      return { hiddenFrom: account.hiddenFrom }
    },

    async clientVersion({ current, minimum }) {
      const policy = network.clientVersions
      const next = current === undefined ? policy.current : parseClientVersion(current, 'current')
      const floor =
        minimum === undefined
          ? policy.minimum
          : minimum === null
            ? undefined
            : parseClientVersion(minimum, 'minimum')
      policy.set(next, floor)
      await network.state.flushed()
      return { current: next.join('.'), minimum: floor?.join('.') ?? null }
    },

    async mediaLifetime({ lifetimeMs }) {
      if (lifetimeMs !== undefined) {
        if (!Number.isInteger(lifetimeMs) || lifetimeMs < 1 || lifetimeMs > MAX_MEDIA_LIFETIME_MS) {
          throw new SandboxError(
            'invalid_parameter',
            'lifetime_ms must be a whole number from 1 to 7776000000 (90 days).',
          )
        }
        network.media.lifetimeMs = lifetimeMs
        await network.state.flushed()
      }
      return { lifetimeMs: network.media.lifetimeMs }
    },

    async forgetMedia(phone) {
      const files = network.phoneMedia.forget(accountOf(network, phone).phone)
      await network.state.flushed()
      return { files }
    },

    inbox(phone) {
      return [...accountOf(network, phone).inbox.values()]
    },

    call(phone, { to, video }) {
      const caller = accountOf(network, phone)
      const target = targetOf(network, caller, to)
      if (!('account' in target))
        throw new SandboxError('invalid_parameter', 'to must be a contact: group calls are not simulated.')
      return { id: network.calls.ring(caller, target.account, video ?? false).id }
    },

    calls(phone) {
      return network.calls.madeBy(accountOf(network, phone).phone)
    },

    reads(phone) {
      return network.recentSends.readOf(accountOf(network, phone).phone)
    },

    read(phone, ids) {
      const reader = accountOf(network, phone)
      if (ids.length === 0) throw new SandboxError('missing_parameter', 'ids must name at least one message.')
      const entries = ids.map((id) => {
        const entry = reader.inbox.get(id)
        if (!entry) throw new SandboxError('message_not_found', `${reader.phone} received no message ${id}.`)
        return entry
      })
      readAsContact(network, reader, entries)
      return { read: entries.length }
    },

    receipts(phone) {
      return network.sentReceipts.of(accountOf(network, phone).phone)
    },

    presence(phone) {
      const { phone: known } = accountOf(network, phone)
      return {
        online: network.presence.availability(known),
        chatStates: network.presence.chatStatesSeenBy(known),
      }
    },

    showPresence(phone, { state, to }) {
      const account = accountOf(network, phone)
      if (state === 'available' || state === 'unavailable') {
        if (to !== undefined) throw new SandboxError('invalid_parameter', `to is not used with ${state}.`)
        network.presence.setAvailable(account, state === 'available')
        return
      }
      if (!to) throw new SandboxError('missing_parameter', `to is required with ${state}.`)
      const target = targetOf(network, account, to)
      if (!('account' in target))
        throw new SandboxError('invalid_parameter', 'to must be a contact for a chat state.')
      network.presence.showChatState(account, target.account, state)
    },

    async send(phone, input: SandboxSendInput) {
      const sender = accountOf(network, phone)
      if (!input.to) throw new SandboxError('missing_parameter', 'to is required.')
      const target = targetOf(network, sender, input.to)
      const content = contentOf(network, sender, input)
      const record = await sendFromPhone(network, sender, target, content, input.addressing ?? 'pn')
      await network.state.flushed()
      return { id: record.id }
    },

    async createGroup({ subject, participants }) {
      if (!subject) throw new SandboxError('missing_parameter', 'subject is required.')
      if (!Array.isArray(participants) || participants.length === 0) {
        throw new SandboxError('missing_parameter', 'participants must list at least one phone number.')
      }
      const members = participants.map((phone) => accountOf(network, assertPhone(phone, 'participants')))
      const [creator, ...others] = members as [Account, ...Account[]]
      const group = network.groups.create(subject, creator, others)
      announceGroupCreated(group)
      await network.state.flushed()
      return { groupId: group.jid }
    },

    group(groupId) {
      return groupInfo(network, groupOf(network, groupId))
    },

    async changeGroup(phone, groupId, change) {
      const results = applyGroupChange(network, groupOf(network, groupId), accountOf(network, phone), change)
      await network.state.flushed()
      return { results }
    },

    async joinGroup(phone, code) {
      if (!code) throw new SandboxError('missing_parameter', 'code is required.')
      let group: Group
      try {
        group = joinByInvite(network, accountOf(network, phone), code)
      } catch (error) {
        if (error instanceof GroupRefusal)
          throw new SandboxError('conflict', `The network refused: ${error.message}.`)
        throw error
      }
      await network.state.flushed()
      return { groupId: group.jid }
    },

    async unlink(phone) {
      unlinkDevices(accountOf(network, phone))
      await network.state.flushed()
    },

    async setPicture(phone, image) {
      const account = accountOf(network, phone)
      if (image.length === 0) throw new SandboxError('invalid_parameter', 'media_base64 must not be empty.')
      const { url } = network.pictures.set(account, image)
      await network.state.flushed()
      return { url }
    },

    async drop(phone, mode: DropMode, downForMs) {
      if (mode !== 'close' && mode !== 'silent')
        throw new SandboxError('invalid_parameter', 'mode must be "close" or "silent".')
      if (
        downForMs !== undefined &&
        !(Number.isInteger(downForMs) && downForMs > 0 && downForMs <= MAX_OUTAGE_MS)
      )
        throw new SandboxError(
          'invalid_parameter',
          `down_for_ms must be a whole number of milliseconds from 1 to ${MAX_OUTAGE_MS}.`,
        )
      const account = accountOf(network, phone)
      if (downForMs !== undefined) keepNetworkDown(network, account, Date.now() + downForMs)
      dropConnections(account, mode)
    },

    dropAll(mode: DropMode) {
      if (mode !== 'close' && mode !== 'silent')
        throw new SandboxError('invalid_parameter', 'mode must be "close" or "silent".')
      return network.directory.all().reduce((cut, account) => cut + dropConnections(account, mode), 0)
    },

    replace(phone) {
      return replaceDevices(accountOf(network, phone))
    },

    failNextLogin(phone, reason) {
      const account = accountOf(network, phone)
      if (!LOGIN_FAILURE_REASONS.includes(reason))
        throw new SandboxError(
          'invalid_parameter',
          `code must be a login failure the network sends: ${LOGIN_FAILURE_REASONS.join(', ')}.`,
        )
      failNextLogin(network, account, reason)
    },

    appState(phone) {
      return appStateOf(accountOf(network, phone))
    },

    async changeLabel(phone, change) {
      await changeLabelFromPhone(accountOf(network, phone), change)
      await network.state.flushed()
    },

    async changeAppState(phone, change) {
      await changeAppStateFromPhone(accountOf(network, phone), change)
      await network.state.flushed()
    },

    forgetSessions(phone) {
      const account = accountOf(network, phone)
      for (const other of network.directory.all()) {
        for (const device of other.linkedDevices.values()) {
          account.phoneDevice.forgetSession(deviceAddress(other, device.id))
        }
      }
    },
  }
}
