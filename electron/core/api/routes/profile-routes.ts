import { Type } from '@sinclair/typebox'
import type { MessageService } from '../../messages/message-service'
import { PRIVACY_NAMES, PRIVACY_SETTINGS } from '../../messages/own-profile'
import { defineOperation, type Operation } from '../operation'
import { checks, type FieldSpec } from '../params'

export interface ProfileRoutesDeps {
  messages: MessageService
}

const PRIVACY_FIELDS = Object.fromEntries(
  PRIVACY_NAMES.map((name): [string, FieldSpec] => [
    name,
    {
      type: 'string',
      enum: PRIVACY_SETTINGS[name].values,
      description: `Who sees it: ${PRIVACY_SETTINGS[name].values.join(', ')}.`,
    },
  ]),
)

/** Each privacy setting the network gave, by the API's name. */
const PrivacySchema = Type.Object(
  Object.fromEntries(
    PRIVACY_NAMES.map((name) => [
      name,
      Type.Optional(Type.String({ description: `${PRIVACY_SETTINGS[name].values.join(', ')}.` })),
    ]),
  ),
)

/** set_profile, privacy and set_privacy: the account's own about text, picture and privacy settings. */
export function profileOperations({ messages }: ProfileRoutesDeps): Operation[] {
  const { profile } = messages
  return [
    defineOperation({
      name: 'set_profile',
      tag: 'Profile',
      summary: "Set the account's display name, about text and/or profile picture.",
      description:
        "Contacts see the new name (at most 25 characters, on the messages the account sends from then on), about text (at most 139 characters) and picture at once. The name travels to the account's other devices by app-state sync. The picture comes as `media_url`, `media_base64` or a multipart file part, under the media limits, and must be an image (made the square JPEG the apps show).",
      auth: 'token',
      instance: true,
      fields: {
        name: {
          type: 'string',
          maxLength: 100,
          description: 'The display name (push name).',
          example: 'Acme Support',
        },
        about: { type: 'string', maxLength: 139, description: 'The about text.', example: 'Open 9 to 5' },
        media_url: {
          type: 'string',
          maxLength: 4096,
          check: checks.httpUrl,
          description: 'The picture, fetched by Linkdesk.',
          example: 'https://example.com/logo.png',
        },
        media_base64: { type: 'string', description: 'The picture as base64 (or a `data:` URL).' },
        file: { type: 'file', description: 'The picture as the file part of a multipart body.' },
      },
      answer: { changed: Type.Array(Type.String(), { description: 'What changed: name, about, picture.' }) },
      example: { status: 'success', changed: ['name', 'about', 'picture'] },
      handle: async ({ params, instance }) => ({
        status: 'success',
        changed: await profile.update(instance.id, {
          name: params.name,
          about: params.about,
          picture: { mediaUrl: params.media_url, mediaBase64: params.media_base64, upload: params.file },
        }),
      }),
    }),
    defineOperation({
      name: 'privacy',
      tag: 'Profile',
      summary: "The account's privacy settings.",
      auth: 'token',
      instance: true,
      fields: {},
      answer: { privacy: PrivacySchema },
      example: {
        status: 'success',
        privacy: {
          last_seen: 'all',
          online: 'all',
          profile_photo: 'all',
          about: 'contacts',
          groups_add: 'all',
          read_receipts: 'all',
        },
      },
      handle: async ({ instance }) => ({ status: 'success', privacy: await profile.privacy(instance.id) }),
    }),
    defineOperation({
      name: 'set_privacy',
      tag: 'Profile',
      summary: "Change the account's privacy settings.",
      description:
        'Changes the settings given (each checked before any is sent) and answers all of them. `read_receipts=none` also stops this account from seeing others’ read receipts, as in the apps.',
      auth: 'token',
      instance: true,
      fields: PRIVACY_FIELDS,
      answer: { privacy: PrivacySchema },
      example: { status: 'success', privacy: { last_seen: 'contacts', read_receipts: 'all' } },
      handle: async ({ params, instance }) => {
        await profile.setPrivacy(instance.id, params as Record<string, string | undefined>)
        return { status: 'success', privacy: await profile.privacy(instance.id) }
      },
    }),
  ]
}
