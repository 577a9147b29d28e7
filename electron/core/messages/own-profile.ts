import type { Limits } from '../config'
import { AppError } from '../errors'
import type { Logger } from '../logger'
import type { WaConnection, WaPrivacyCategory } from '../contract/network'
import { decodeBase64Media } from './base64-media'
import { type PictureInput, pictureGiven } from '../contract/media'
import { type FetchedMedia, fetchMedia, uploadedMedia } from './media-fetcher'

/** The privacy settings, in the API's names, with the network's category and the values each accepts. */
export const PRIVACY_SETTINGS = {
  last_seen: { category: 'last', values: ['all', 'contacts', 'contact_blacklist', 'none'] },
  online: { category: 'online', values: ['all', 'match_last_seen'] },
  profile_photo: { category: 'profile', values: ['all', 'contacts', 'contact_blacklist', 'none'] },
  about: { category: 'status', values: ['all', 'contacts', 'contact_blacklist', 'none'] },
  groups_add: { category: 'groupadd', values: ['all', 'contacts', 'contact_blacklist'] },
  read_receipts: { category: 'readreceipts', values: ['all', 'none'] },
} as const satisfies Record<string, { category: WaPrivacyCategory; values: readonly string[] }>

export type PrivacySetting = keyof typeof PRIVACY_SETTINGS
export const PRIVACY_NAMES = Object.keys(PRIVACY_SETTINGS) as PrivacySetting[]

const ABOUT_CHARS = 139
/** WhatsApp's limit on a display name. */
const NAME_CHARS = 25

export interface OwnProfileDeps {
  limits: Limits
  logger: Logger
  connection(instanceId: string): Promise<WaConnection>
}

/** The account's own about text, picture and privacy settings. */
export class OwnProfile {
  constructor(private readonly deps: OwnProfileDeps) {}

  /** Sets the display name, the about text and/or the picture; what is not given stays as it is. */
  async update(
    instanceId: string,
    change: { name?: string; about?: string; picture?: PictureInput },
  ): Promise<string[]> {
    const picture = pictureGiven(change.picture)
    if (change.name === undefined && change.about === undefined && !picture) {
      throw new AppError(
        'missing_parameter',
        'Give name, about, or a picture (media_url, media_base64 or a file part).',
        { details: { parameters: ['name', 'about', 'media_url'] } },
      )
    }
    const name = change.name?.trim()
    if (name !== undefined && (name.length === 0 || [...name].length > NAME_CHARS)) {
      throw new AppError('invalid_parameter', `name must be 1 to ${NAME_CHARS} characters.`, {
        details: { parameter: 'name' },
      })
    }
    if (change.about !== undefined && change.about.length > ABOUT_CHARS) {
      throw new AppError('invalid_parameter', `about must be at most ${ABOUT_CHARS} characters.`, {
        details: { parameter: 'about' },
      })
    }
    const image = picture ? await loadPicture(change.picture as PictureInput, this.deps) : undefined
    const connection = await this.deps.connection(instanceId)
    const changed: string[] = []
    if (name !== undefined) {
      await connection.setName(name)
      changed.push('name')
    }
    if (change.about !== undefined) {
      await connection.setAbout(change.about)
      changed.push('about')
    }
    if (image) {
      await connection.setPicture(image.data)
      changed.push('picture')
    }
    return changed
  }

  /** The privacy settings, in the API's names. */
  async privacy(instanceId: string): Promise<Partial<Record<PrivacySetting, string>>> {
    const settings = await (await this.deps.connection(instanceId)).privacy()
    const shown: Partial<Record<PrivacySetting, string>> = {}
    for (const name of PRIVACY_NAMES) {
      const value = settings[PRIVACY_SETTINGS[name].category]
      if (value !== undefined) shown[name] = value
    }
    return shown
  }

  /** Changes the privacy settings given; every value is checked before any is sent. */
  async setPrivacy(instanceId: string, change: Partial<Record<PrivacySetting, string>>): Promise<void> {
    const given = PRIVACY_NAMES.filter((name) => change[name] !== undefined)
    if (given.length === 0) {
      throw new AppError('missing_parameter', `Give a privacy setting: ${PRIVACY_NAMES.join(', ')}.`, {
        details: { parameters: PRIVACY_NAMES },
      })
    }
    for (const name of given) {
      const allowed: readonly string[] = PRIVACY_SETTINGS[name].values
      if (!allowed.includes(change[name] as string)) {
        throw new AppError('invalid_parameter', `${name} must be one of: ${allowed.join(', ')}.`, {
          details: { parameter: name },
        })
      }
    }
    const connection = await this.deps.connection(instanceId)
    for (const name of given)
      await connection.setPrivacy(PRIVACY_SETTINGS[name].category, change[name] as string)
  }
}

/** Reads a picture (fetched, uploaded or base64) under the media limits; anything but an image is refused. */
export async function loadPicture(
  input: PictureInput,
  { limits, logger }: { limits: Limits; logger: Logger },
): Promise<FetchedMedia> {
  const { mediaBytes: maxBytes, mediaFetchMs: timeoutMs } = limits
  const media = input.mediaBase64
    ? uploadedMedia(decodeBase64Media(input.mediaBase64), { maxBytes, source: 'media_base64' })
    : input.upload
      ? uploadedMedia(input.upload, { maxBytes })
      : await fetchMedia(input.mediaUrl as string, { maxBytes, timeoutMs, log: logger })
  if (media.kind !== 'image') {
    throw new AppError('media_unavailable', `The picture is not an image (it is ${media.mimetype}).`, {
      details: { parameter: 'media_url' },
    })
  }
  return media
}
