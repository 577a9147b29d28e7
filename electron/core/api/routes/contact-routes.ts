import { Type } from '@sinclair/typebox'
import { Nullable } from '../../schema'
import { InstanceViewSchema } from '../../instances/instance-view'
import { CALL_MESSAGE_CHARS } from '../../messages/call-desk'
import type { MessageService } from '../../messages/message-service'
import type { RoutePlugin } from '../build-api'
import { defineOperation, type Operation } from '../operation'
import { CHAT_NUMBER } from './chat-field'
import { INSTANCE_ID_PARAM } from '../openapi-route'

export interface ContactRoutesDeps {
  messages: MessageService
}

/**
 * check_numbers and profile (what a bot reads about numbers and contacts, sending them nothing), and
 * reject_call and set_call_rejection (how it answers calls).
 */
export function contactOperations({ messages }: ContactRoutesDeps): Operation[] {
  const { contacts, calls } = messages
  return [
    defineOperation({
      name: 'check_numbers',
      tag: 'Contacts',
      summary: 'Check which numbers are on the network, without writing to them.',
      description:
        'For each number (digits with country code; `+`, spaces, dashes and parentheses are ignored): whether it is on the network, the chat id to write to, and its LID when the network gives it. Nothing is sent to the numbers. A malformed number is 400 invalid_parameter naming it.',
      auth: 'token',
      instance: true,
      fields: {
        numbers: {
          type: 'list',
          required: true,
          maxItems: 50,
          maxLength: 40,
          description: 'Up to 50 numbers.',
          example: ['15551234567', '15557654321'],
        },
      },
      answer: {
        numbers: Type.Array(
          Type.Object({
            number: Type.String({ description: 'The number as asked, digits only.' }),
            exists: Type.Boolean(),
            chat_id: Nullable(Type.String({ description: 'The chat id to write to, when it exists.' })),
            lid: Nullable(Type.String({ description: 'Its LID, when the network gave it.' })),
          }),
        ),
      },
      example: {
        status: 'success',
        numbers: [
          {
            number: '15551234567',
            exists: true,
            chat_id: '15551234567@s.whatsapp.net',
            lid: '123456789012345@lid',
          },
          { number: '15557654321', exists: false, chat_id: null, lid: null },
        ],
      },
      handle: async ({ params, instance }) => ({
        status: 'success',
        numbers: await contacts.checkNumbers(instance.id, params.numbers),
      }),
    }),
    defineOperation({
      name: 'profile',
      tag: 'Contacts',
      summary: "A contact's or group's profile picture and about text.",
      description:
        'The picture is served by this server at `picture_url` (GET with the same access token), fetched from the network on each request, so scripts never need the network’s own addresses or certificates; null when there is none (or the contact’s privacy hides it). `about` is the contact’s about text (null for groups and when hidden).',
      auth: 'token',
      instance: true,
      fields: {
        number: { ...CHAT_NUMBER, required: true },
      },
      answer: {
        chat: Type.String({ description: 'The chat id.' }),
        about: Nullable(Type.String()),
        picture_url: Nullable(Type.String({ description: 'Where this server serves the picture.' })),
      },
      example: {
        status: 'success',
        chat: '15551234567@s.whatsapp.net',
        about: 'Hey there! I am using WhatsApp.',
        picture_url:
          'http://127.0.0.1:8686/api/v1/profile_picture/1FFD9618F8278E0830973068/15551234567%40s.whatsapp.net',
      },
      handle: async ({ params, instance }) => ({
        status: 'success',
        ...(await contacts.profile(instance.id, params.number)),
      }),
    }),
    defineOperation({
      name: 'block',
      tag: 'Contacts',
      summary: 'Block a contact: the network stops delivering its messages.',
      description:
        'Blocks `number` on the network, as the phone does: its messages no longer arrive (it sees one tick), and it cannot call. `unblock` undoes it; `blocked` lists the blocked contacts. A number not on the network is 422 recipient_not_found.',
      auth: 'token',
      instance: true,
      fields: { number: { ...CHAT_NUMBER, required: true } },
      answer: { chat: Type.String({ description: 'The chat id blocked.' }), blocked: Type.Literal(true) },
      example: { status: 'success', chat: '15551234567@s.whatsapp.net', blocked: true },
      handle: async ({ params, instance }) => ({
        status: 'success',
        chat: await contacts.setBlocked(instance.id, params.number, true),
        blocked: true,
      }),
    }),
    defineOperation({
      name: 'unblock',
      tag: 'Contacts',
      summary: 'Unblock a contact.',
      auth: 'token',
      instance: true,
      fields: { number: { ...CHAT_NUMBER, required: true } },
      answer: { chat: Type.String({ description: 'The chat id unblocked.' }), blocked: Type.Literal(false) },
      example: { status: 'success', chat: '15551234567@s.whatsapp.net', blocked: false },
      handle: async ({ params, instance }) => ({
        status: 'success',
        chat: await contacts.setBlocked(instance.id, params.number, false),
        blocked: false,
      }),
    }),
    defineOperation({
      name: 'blocked',
      tag: 'Contacts',
      summary: 'The contacts this account blocked.',
      description:
        'As the network lists them: each by the chat id it gives (often a LID), with the phone number where it is known.',
      auth: 'token',
      instance: true,
      fields: {},
      answer: {
        blocked: Type.Array(
          Type.Object({ chat: Type.String(), phone: Nullable(Type.String({ description: 'When known.' })) }),
        ),
      },
      example: { status: 'success', blocked: [{ chat: '123456789012345@lid', phone: '15551234567' }] },
      handle: async ({ instance }) => ({ status: 'success', blocked: await contacts.blocked(instance.id) }),
    }),
    defineOperation({
      name: 'reject_call',
      tag: 'Contacts',
      summary: 'Reject a ringing call.',
      description:
        'Declines the call named by `call_id` (from its call.received event) while it rings: the caller sees it declined. 404 call_not_found for a call that is not ringing (ended, or never seen).',
      auth: 'token',
      instance: true,
      fields: {
        call_id: {
          type: 'string',
          required: true,
          maxLength: 128,
          description: '`data.id` of the call.received event.',
          example: '9A1C4E7B2D5F8A3C6E9B1D4F7A2C5E8B',
        },
      },
      answer: { call_id: Type.String({ description: 'The call rejected.' }) },
      example: { status: 'success', call_id: '9A1C4E7B2D5F8A3C6E9B1D4F7A2C5E8B' },
      handle: async ({ params, instance }) => {
        const call = await calls.reject(instance.id, params.call_id)
        return { status: 'success', call_id: call.id }
      },
    }),
    defineOperation({
      name: 'set_call_rejection',
      tag: 'Contacts',
      summary: 'Reject every incoming call automatically, with an optional text to the caller.',
      description: `With \`enable=true\`, each call is rejected as it rings (it still arrives as call.received), and \`message\` (optional, at most ${CALL_MESSAGE_CHARS} characters) is sent to the caller as a text after it, through the paced send queue. \`enable=false\` lets calls ring again. Kept across restarts; shown as \`calls\` in the instance answers; an instance.updated event names \`calls\`.`,
      auth: 'token',
      instance: true,
      fields: {
        enable: {
          type: 'boolean',
          required: true,
          description: 'Reject every call (true), or let them ring (false).',
          example: true,
        },
        message: {
          type: 'string',
          description: 'Sent to the caller after each automatic rejection.',
          example: 'Sorry, this number takes no calls: please write instead.',
        },
      },
      answer: {
        calls: InstanceViewSchema.properties.calls,
      },
      example: {
        status: 'success',
        calls: { reject: true, message: 'Sorry, this number takes no calls: please write instead.' },
      },
      handle: async ({ params, instance }) => ({
        status: 'success',
        calls: await calls.setRejection(instance.id, {
          reject: params.enable,
          message: params.message ?? null,
        }),
      }),
    }),
  ]
}

/** GET {base}/profile_picture/{instance_id}/{chat}: the picture, fetched from the network now. */
export function profilePictureRoutes({ messages }: ContactRoutesDeps): RoutePlugin {
  return (app, { access, prefix }) => {
    app.get<{ Params: { instanceId: string; chat: string } }>(
      `${prefix}/profile_picture/:instanceId/:chat`,
      {
        config: {
          auth: 'token',
          openapi: {
            tag: 'Contacts',
            summary: 'A contact’s or group’s profile picture (the picture_url of profile), fetched now.',
            params: {
              instanceId: INSTANCE_ID_PARAM,
              chat: { description: 'The chat id, URL-encoded.', example: '15550002222@s.whatsapp.net' },
            },
            answer: { contentTypes: ['image/jpeg'], description: 'The picture.' },
          },
        },
      },
      async (request, reply) => {
        const record = access(request.params.instanceId, request.principal)
        const picture = await messages.contacts.picture(record.id, request.params.chat)
        return reply
          .header('content-type', 'image/jpeg')
          .header('x-content-type-options', 'nosniff')
          .header('cache-control', 'private, no-store')
          .send(picture)
      },
    )
  }
}
