import {
  DESCRIPTION_CHARS,
  INVITE_LINK_BASE,
  parseGroupId,
  PARTICIPANTS_PER_CHANGE,
  SUBJECT_CHARS,
} from '../../groups/group-input'
import { Type } from '@sinclair/typebox'
import { GROUP_SAMPLE, GroupSchema, GroupSummarySchema } from '../../contract/group'
import { Nullable, OneOf } from '../../schema'
import type { MessageService } from '../../messages/message-service'
import { defineOperation, type Operation } from '../operation'
import { checks } from '../params'

export interface GroupRoutesDeps {
  messages: MessageService
}

export const GROUP_ID = {
  type: 'string',
  required: true,
  maxLength: 60,
  description: 'The group id, `<digits>@g.us` (as groups and group events give it).',
  example: GROUP_SAMPLE.id,
} as const

export const PARTICIPANTS = {
  type: 'list',
  required: true,
  maxItems: PARTICIPANTS_PER_CHANGE,
  maxLength: 60,
  description: `Phone numbers with country code (or phone / LID chat ids), at most ${PARTICIPANTS_PER_CHANGE}.`,
  example: ['15557654321'],
} as const

const INVITE_CODE = {
  type: 'string',
  required: true,
  maxLength: 200,
  description: `An invite code, or its link (\`${INVITE_LINK_BASE}<code>\`).`,
  example: `${INVITE_LINK_BASE}AbCdEfGhIjKlMnOpQrStUv`,
} as const

const { participants: _members, ...SUMMARY_SAMPLE } = GROUP_SAMPLE

const GROUP_ID_ANSWER = Type.String({ description: 'The group id, `<digits>@g.us`.' })

/** A participant's outcome (group-desk's ParticipantOutcome), with the invitation the network made. */
export const ParticipantOutcomeSchema = Type.Object({
  participant: Type.String({ description: 'The phone number (or chat id) acted on.' }),
  result: OneOf([
    'added',
    'removed',
    'promoted',
    'demoted',
    'already_member',
    'not_member',
    'not_on_network',
    'invite_required',
    'refused',
  ]),
  invite: Nullable(
    Type.Object({
      code: Type.String(),
      link: Type.String(),
      expiration: Type.Integer({ description: 'Unix seconds.' }),
      message_id: Nullable(Type.String({ description: 'The invite message sent; null when not sent.' })),
    }),
  ),
})

/**
 * groups, group, create_group, group_participants, update_group, group_invite, group_invite_info,
 * join_group and leave_group: the account's groups, read and run through the network.
 */
export function groupOperations({ messages }: GroupRoutesDeps): Operation[] {
  const { groups } = messages
  return [
    defineOperation({
      name: 'groups',
      tag: 'Groups',
      summary: 'The groups the account is in.',
      description:
        'Read from the network each time: id, subject, description, creator, size, and whether this account is an admin.',
      auth: 'token',
      instance: true,
      fields: {},
      answer: { groups: Type.Array(GroupSummarySchema) },
      example: { status: 'success', groups: [SUMMARY_SAMPLE] },
      handle: async ({ instance }) => ({ status: 'success', groups: await groups.list(instance.id) }),
    }),
    defineOperation({
      name: 'group',
      tag: 'Groups',
      summary: 'One group, with its members and their roles.',
      description:
        'A group this account is not in is 404 group_not_found (the network shows groups to their members only).',
      auth: 'token',
      instance: true,
      fields: { group_id: GROUP_ID },
      answer: { group: GroupSchema },
      example: { status: 'success', group: GROUP_SAMPLE },
      handle: async ({ params, instance }) => ({
        status: 'success',
        group: await groups.get(instance.id, params.group_id),
      }),
    }),
    defineOperation({
      name: 'create_group',
      tag: 'Groups',
      summary: 'Create a group with a subject and its first members; this account is its creator and admin.',
      description:
        'Every phone number is checked on the network first: one that is not there is 422 participant_not_found, naming each in `details.numbers`, and no group is made. Members whose privacy refuses being added are left out by the network, which makes the group without them; then, and only then, the answer has `not_added`: each `participant` with its `result` (invite_required, or refused) and the `invite` the network made (`message_id` null). group_participants with `send_invite=true` adds them again and sends them the invitation.',
      auth: 'token',
      instance: true,
      fields: {
        subject: {
          type: 'string',
          required: true,
          maxLength: 1000,
          description: `At most ${SUBJECT_CHARS} characters.`,
          example: 'Customer: Acme',
        },
        participants: PARTICIPANTS,
      },
      answer: {
        group: GroupSchema,
        not_added: Type.Optional(
          Type.Array(ParticipantOutcomeSchema, { description: 'Only when the network left someone out.' }),
        ),
      },
      example: { status: 'success', group: GROUP_SAMPLE },
      handle: async ({ params, instance }) => ({
        status: 'success',
        ...(await groups.create(instance.id, params.subject, params.participants)),
      }),
    }),
    defineOperation({
      name: 'group_participants',
      tag: 'Groups',
      summary: 'Add, remove, promote to admin or demote members, with each one’s result.',
      description:
        'Each participant’s `result`: added, removed, promoted, demoted; already_member; not_member; not_on_network; invite_required (their privacy refuses adds: `invite` is the invitation the network made, sent to them as an invite message when `send_invite=true`, its `message_id` null if that send failed); refused. Acting without being admin is 403 not_group_admin, and nothing changes.',
      auth: 'token',
      instance: true,
      fields: {
        group_id: GROUP_ID,
        action: {
          type: 'string',
          required: true,
          enum: ['add', 'remove', 'promote', 'demote'],
          description: 'What to do to the participants.',
          example: 'add',
        },
        participants: PARTICIPANTS,
        send_invite: {
          type: 'boolean',
          description: 'For add: send the invitation to whoever’s privacy refused the add.',
          example: true,
        },
        invite_message: {
          type: 'string',
          maxLength: 1000,
          description: 'The invitation’s text (default: Join "<subject>" on WhatsApp).',
        },
      },
      answer: {
        group_id: GROUP_ID_ANSWER,
        action: OneOf(['add', 'remove', 'promote', 'demote']),
        participants: Type.Array(ParticipantOutcomeSchema),
      },
      example: {
        status: 'success',
        group_id: GROUP_SAMPLE.id,
        action: 'add',
        participants: [
          { participant: '15557654321', result: 'added', invite: null },
          {
            participant: '15550001111',
            result: 'invite_required',
            invite: {
              code: 'AbCdEfGhIjKlMnOp',
              link: `${INVITE_LINK_BASE}AbCdEfGhIjKlMnOp`,
              expiration: 1795858714,
              message_id: '3EB0C4F1A2B3C4D5E6F7',
            },
          },
        ],
      },
      handle: async ({ params, instance }) => ({
        status: 'success',
        group_id: parseGroupId(params.group_id),
        action: params.action,
        participants: await groups.changeParticipants(
          instance.id,
          params.group_id,
          params.action as 'add' | 'remove' | 'promote' | 'demote',
          params.participants,
          { sendInvite: params.send_invite, inviteText: params.invite_message },
        ),
      }),
    }),
    defineOperation({
      name: 'update_group',
      tag: 'Groups',
      summary: 'Change a group’s subject, description, picture or settings.',
      description: `Changes what is given, all or nothing, and answers what changed. Every value, the picture and the account's rights (read from the network: settings are for admins; subject, description and picture too when only admins edit) are checked before anything is sent: a change the network would refuse in part is refused whole, 403 not_group_admin with \`details.fields\`, and nothing changes. An empty description removes it. The picture comes as \`media_url\`, \`media_base64\` or a multipart file part and must be an image that can be read. If the network still refuses a part midway (rights changed since the check), the rest is not sent and the error says per field what was applied: \`details.results\` lists each field with \`result\` applied, refused (with \`code\` and \`message\`) or not_sent, and \`details.changed\` what changed; the code is the refusal's own when nothing changed, else 409 group_change_incomplete.`,
      auth: 'token',
      instance: true,
      fields: {
        group_id: GROUP_ID,
        subject: {
          type: 'string',
          maxLength: 1000,
          description: `At most ${SUBJECT_CHARS} characters.`,
          example: 'Customer: Acme (EU)',
        },
        description: {
          type: 'string',
          maxLength: 10_000,
          description: `At most ${DESCRIPTION_CHARS} characters.`,
        },
        only_admins_send: { type: 'boolean', description: 'Only admins send messages.', example: false },
        only_admins_edit: {
          type: 'boolean',
          description: 'Only admins change subject, description and picture.',
          example: true,
        },
        media_url: {
          type: 'string',
          maxLength: 4096,
          check: checks.httpUrl,
          description: 'The new picture, fetched by Linkdesk.',
        },
        media_base64: { type: 'string', description: 'The new picture as base64 (or a `data:` URL).' },
        file: { type: 'file', description: 'The new picture as the file part of a multipart body.' },
      },
      answer: {
        group_id: GROUP_ID_ANSWER,
        changed: Type.Array(Type.String(), { description: 'The fields changed.' }),
      },
      example: { status: 'success', group_id: GROUP_SAMPLE.id, changed: ['subject', 'only_admins_edit'] },
      handle: async ({ params, instance }) => ({
        status: 'success',
        group_id: parseGroupId(params.group_id),
        changed: await groups.update(instance.id, params.group_id, {
          subject: params.subject,
          description: params.description,
          onlyAdminsSend: params.only_admins_send,
          onlyAdminsEdit: params.only_admins_edit,
          picture: { mediaUrl: params.media_url, mediaBase64: params.media_base64, upload: params.file },
        }),
      }),
    }),
    defineOperation({
      name: 'group_invite',
      tag: 'Groups',
      summary: 'The group’s invite link; `revoke=true` replaces it and the old one stops working.',
      auth: 'token',
      instance: true,
      fields: {
        group_id: GROUP_ID,
        revoke: { type: 'boolean', description: 'Make a new link, ending the old one.', example: false },
      },
      answer: { group_id: GROUP_ID_ANSWER, code: Type.String(), link: Type.String() },
      example: {
        status: 'success',
        group_id: GROUP_SAMPLE.id,
        code: 'AbCdEfGhIjKlMnOpQrStUv',
        link: `${INVITE_LINK_BASE}AbCdEfGhIjKlMnOpQrStUv`,
      },
      handle: async ({ params, instance }) => ({
        status: 'success',
        group_id: parseGroupId(params.group_id),
        ...(await groups.invite(instance.id, params.group_id, params.revoke ?? false)),
      }),
    }),
    defineOperation({
      name: 'group_invite_info',
      tag: 'Groups',
      summary: 'What group an invite opens, without joining it.',
      description: 'An invite that no longer works (revoked, or unknown) is 404 not_found.',
      auth: 'token',
      instance: true,
      fields: { code: INVITE_CODE },
      answer: { group: GroupSummarySchema },
      example: { status: 'success', group: { ...SUMMARY_SAMPLE, is_admin: false } },
      handle: async ({ params, instance }) => ({
        status: 'success',
        group: await groups.inviteInfo(instance.id, params.code),
      }),
    }),
    defineOperation({
      name: 'join_group',
      tag: 'Groups',
      summary: 'Join a group by its invite.',
      auth: 'token',
      instance: true,
      fields: { code: INVITE_CODE },
      answer: { group_id: GROUP_ID_ANSWER },
      example: { status: 'success', group_id: GROUP_SAMPLE.id },
      handle: async ({ params, instance }) => ({
        status: 'success',
        group_id: await groups.join(instance.id, params.code),
      }),
    }),
    defineOperation({
      name: 'leave_group',
      tag: 'Groups',
      summary: 'Leave a group.',
      auth: 'token',
      instance: true,
      fields: { group_id: GROUP_ID },
      answer: { group_id: GROUP_ID_ANSWER },
      example: { status: 'success', group_id: GROUP_SAMPLE.id },
      handle: async ({ params, instance }) => {
        await groups.leave(instance.id, params.group_id)
        return { status: 'success', group_id: parseGroupId(params.group_id) }
      },
    }),
  ]
}
