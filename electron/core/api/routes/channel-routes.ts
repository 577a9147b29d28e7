import { Type } from '@sinclair/typebox'
import {
  CHANNEL_LINK_BASE,
  CHANNEL_POST_SAMPLE,
  CHANNEL_SAMPLE,
  ChannelPostSchema,
  ChannelSchema,
} from '../../contract/channel'
import { POST_CHARS, POSTS_PER_READ } from '../../messages/channel-desk'
import type { MessageService } from '../../messages/message-service'
import { Nullable } from '../../schema'
import { defineOperation, type Operation } from '../operation'
import type { RoutePlugin } from '../build-api'
import { sendFile } from './message-routes'
import { checks } from '../params'
import { INSTANCE_ID_PARAM } from '../openapi-route'

export interface ChannelRoutesDeps {
  messages: MessageService
}

const CHANNEL_ID = {
  type: 'string',
  required: true,
  maxLength: 60,
  description: 'The channel id, `<digits>@newsletter` (as channels and channel.post events give it).',
  example: CHANNEL_SAMPLE.id,
} as const

const CHANNEL_REF = {
  type: 'string',
  required: true,
  maxLength: 200,
  description: `A channel id (\`<digits>@newsletter\`), an invite code, or its link (\`${CHANNEL_LINK_BASE}<code>\`).`,
  example: `${CHANNEL_LINK_BASE}${CHANNEL_SAMPLE.invite ?? ''}`,
} as const

/**
 * channels, channel, follow_channel, unfollow_channel, channel_posts, react_channel, create_channel and
 * post_channel: the account's channels (WhatsApp newsletters), run through the network.
 */
export function channelOperations({ messages }: ChannelRoutesDeps): Operation[] {
  const { channels } = messages
  return [
    defineOperation({
      name: 'channels',
      tag: 'Channels',
      summary: 'The channels the account follows or owns.',
      description: 'Read from the network each time, with this account’s role in each.',
      auth: 'token',
      instance: true,
      fields: {},
      answer: { channels: Type.Array(ChannelSchema) },
      example: { status: 'success', channels: [CHANNEL_SAMPLE] },
      handle: async ({ instance }) => ({ status: 'success', channels: await channels.list(instance.id) }),
    }),
    defineOperation({
      name: 'channel',
      tag: 'Channels',
      summary: 'One channel, by id, invite code or link, followed or not.',
      description: 'A channel the network does not know is 404 channel_not_found.',
      auth: 'token',
      instance: true,
      fields: { channel: CHANNEL_REF },
      answer: { channel: ChannelSchema },
      example: { status: 'success', channel: CHANNEL_SAMPLE },
      handle: async ({ params, instance }) => ({
        status: 'success',
        channel: await channels.get(instance.id, params.channel),
      }),
    }),
    defineOperation({
      name: 'follow_channel',
      tag: 'Channels',
      summary: 'Follow a channel, by id, invite code or link: its posts then arrive as channel.post events.',
      description: 'A channel the network does not know is 404 channel_not_found and nothing changes.',
      auth: 'token',
      instance: true,
      fields: { channel: CHANNEL_REF },
      answer: { channel: ChannelSchema },
      example: { status: 'success', channel: { ...CHANNEL_SAMPLE, role: 'follower' } },
      handle: async ({ params, instance }) => ({
        status: 'success',
        channel: await channels.follow(instance.id, params.channel, true),
      }),
    }),
    defineOperation({
      name: 'unfollow_channel',
      tag: 'Channels',
      summary: 'Stop following a channel: its posts no longer arrive.',
      auth: 'token',
      instance: true,
      fields: { channel: CHANNEL_REF },
      answer: { channel: ChannelSchema },
      example: { status: 'success', channel: { ...CHANNEL_SAMPLE, role: 'guest', followers: 1 } },
      handle: async ({ params, instance }) => ({
        status: 'success',
        channel: await channels.follow(instance.id, params.channel, false),
      }),
    }),
    defineOperation({
      name: 'channel_posts',
      tag: 'Channels',
      summary: "A channel's recent posts, oldest first, with their reactions counted.",
      description:
        'Anyone may read a channel. `before` pages back: posts older than that post_id. A post’s file is downloaded at its media.download_url (GET /channel_media/{instance_id}/{channel_id}/{post_id}).',
      auth: 'token',
      instance: true,
      fields: {
        channel_id: CHANNEL_ID,
        count: {
          type: 'integer',
          minimum: 1,
          maximum: POSTS_PER_READ,
          description: `How many posts, 1 to ${POSTS_PER_READ} (20 by default).`,
          example: 20,
        },
        before: {
          type: 'string',
          maxLength: 20,
          description: 'A post_id: only older posts.',
          example: '120',
        },
      },
      answer: { posts: Type.Array(ChannelPostSchema) },
      example: { status: 'success', posts: [CHANNEL_POST_SAMPLE] },
      handle: async ({ params, instance }) => ({
        status: 'success',
        posts: await channels.posts(instance.id, params.channel_id, params.count ?? 20, params.before),
      }),
    }),
    defineOperation({
      name: 'react_channel',
      tag: 'Channels',
      summary: 'React to a channel post with an emoji; an empty emoji takes the reaction back.',
      description:
        'The post is named by its post_id (channel_posts and channel.post give it). An unknown channel or post is 404 channel_not_found.',
      auth: 'token',
      instance: true,
      fields: {
        channel_id: CHANNEL_ID,
        post_id: {
          type: 'string',
          required: true,
          maxLength: 20,
          description: 'The post_id.',
          example: '100',
        },
        emoji: {
          type: 'string',
          maxLength: 40,
          description: 'One emoji; empty takes it back.',
          example: '👍',
        },
      },
      answer: {
        channel_id: Type.String(),
        post_id: Type.String(),
        emoji: Type.String({ description: 'The reaction now on the post; empty when taken back.' }),
      },
      example: { status: 'success', channel_id: CHANNEL_SAMPLE.id, post_id: '100', emoji: '👍' },
      handle: async ({ params, instance }) => {
        const emoji = params.emoji ?? ''
        await channels.react(instance.id, params.channel_id, params.post_id, emoji)
        return { status: 'success', channel_id: params.channel_id, post_id: params.post_id, emoji }
      },
    }),
    defineOperation({
      name: 'create_channel',
      tag: 'Channels',
      summary: 'Create a channel this account owns.',
      auth: 'token',
      instance: true,
      fields: {
        name: {
          type: 'string',
          required: true,
          maxLength: 400,
          description: 'At most 100 characters.',
          example: 'Acme news',
        },
        description: {
          type: 'string',
          maxLength: 8000,
          description: 'At most 2048 characters.',
          example: 'What is new at Acme',
        },
      },
      answer: { channel: ChannelSchema },
      example: { status: 'success', channel: { ...CHANNEL_SAMPLE, followers: 0 } },
      handle: async ({ params, instance }) => ({
        status: 'success',
        channel: await channels.create(instance.id, params.name, params.description),
      }),
    }),
    defineOperation({
      name: 'post_channel',
      tag: 'Channels',
      summary: 'Post a text, an image or a video to a channel this account owns; its followers receive it.',
      description: `Give \`text\` (at most ${POST_CHARS} characters), or a file as \`media_url\`, \`media_base64\` or a multipart file part (an image or a video, under the media limits) with \`text\` as its caption. Before anything is sent the channel is read from the network: one it does not know is 404 channel_not_found, one this account does not own is 403 not_channel_owner; an empty post is 400 missing_parameter. The answer carries the post's message_id and the post_id the network numbered it with.`,
      auth: 'token',
      instance: true,
      fields: {
        channel_id: CHANNEL_ID,
        text: {
          type: 'string',
          maxLength: POST_CHARS * 4,
          description: 'The text, or the caption of the file.',
          example: 'Opening hours change on Monday',
        },
        media_url: {
          type: 'string',
          maxLength: 4096,
          check: checks.httpUrl,
          description: 'An image or video, fetched by Linkdesk.',
          example: 'https://example.com/poster.jpg',
        },
        media_base64: { type: 'string', description: 'The file as base64 (or a `data:` URL).' },
        file: { type: 'file', description: 'The file as the file part of a multipart body.' },
      },
      answer: {
        message_id: Type.String(),
        post_id: Nullable(Type.String({ description: "The channel's number of the post." })),
      },
      example: { status: 'success', message_id: '3EB0C431C26A1916E1A6', post_id: '100' },
      handle: async ({ params, instance }) => ({
        status: 'success',
        ...(await channels.post(instance.id, params.channel_id, {
          text: params.text,
          media: { mediaUrl: params.media_url, mediaBase64: params.media_base64, upload: params.file },
        })),
      }),
    }),
  ]
}

/** GET {base}/channel_media/{instance_id}/{channel_id}/{post_id}: a channel post's file, fetched now. */
export function channelMediaRoutes({ messages }: ChannelRoutesDeps): RoutePlugin {
  return (app, { access, prefix }) => {
    app.get<{ Params: { instanceId: string; channelId: string; postId: string } }>(
      `${prefix}/channel_media/:instanceId/:channelId/:postId`,
      {
        config: {
          auth: 'token',
          openapi: {
            tag: 'Channels',
            summary: 'The file of a channel post (its media.download_url in channel_posts and channel.post).',
            description:
              'Fetched from the network now, by its direct path (a channel’s media are not end-to-end encrypted), and checked against the SHA-256 the post states: a file that does not match is 502 upstream_failed. A post the channel does not have is 404 post_not_found, a text post 404 post_without_media, an unknown channel 404 channel_not_found; a file the network no longer holds is 410 media_expired.',
            params: {
              instanceId: INSTANCE_ID_PARAM,
              channelId: {
                description: 'The channel id, `<digits>@newsletter`.',
                example: '120363000000000002@newsletter',
              },
              postId: { description: 'The post_id.', example: '101' },
            },
            answer: {
              contentTypes: ['image/*', 'video/*'],
              description: 'The file, with its mimetype (and, for a document, its file name).',
            },
          },
        },
      },
      async (request, reply) => {
        const record = access(request.params.instanceId, request.principal)
        const { channelId, postId } = request.params
        const file = await messages.channels.file(record.id, channelId, postId)
        return sendFile(reply, file)
      },
    )
  }
}
