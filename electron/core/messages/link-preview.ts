import { getPreviewFromContent } from 'link-preview-js'
import sharp from 'sharp'
import type { Logger } from '../logger'
import type { WaLinkPreview } from '../contract/network'
import { fetchCapped } from './media-fetcher'
import { essence } from './media-kind'
import { publicOnlyDispatcher } from './public-network'

/** Attaches a preview of the first link in a text, as the apps draw it under the message. */
export interface LinkPreviewer {
  /** The preview of the text's first http(s) link; undefined when there is none or it cannot be made. */
  preview(text: string): Promise<WaLinkPreview | undefined>
}

export interface LinkPreviewSettings {
  /** The whole preview (page and picture) is given up after this long; the message then goes without it. */
  timeoutMs: number
  /** Fetch from public addresses only (a link in a message must not reach the local network). */
  publicOnly: boolean
  log: Logger
}

/** A preview is decoration: a slow page delays its own text (and the sends queued behind it) this long at most. */
export const LINK_PREVIEW_TIMEOUT_MS = 5000

/** Enough HTML for any page's <head>; a page beyond it gets no preview. */
const PAGE_BYTES = 1024 * 1024
const PICTURE_BYTES = 5 * 1024 * 1024
/** The apps show a small JPEG beside the title. */
const THUMBNAIL_PX = 192

const LINK = /\bhttps?:\/\/[^\s<>"]+/i

/** The first http(s) link of a text, without the punctuation that ends the sentence around it. */
export function firstLink(text: string): string | undefined {
  return LINK.exec(text)?.[0].replace(/[.,;:!?'")\]]+$/, '')
}

export function createLinkPreviewer(settings: LinkPreviewSettings): LinkPreviewer {
  const dispatcher = settings.publicOnly ? publicOnlyDispatcher() : undefined
  const log = settings.log.child({ module: 'link-preview' })

  async function thumbnail(address: string | undefined, page: URL, deadline: number) {
    if (!address) return undefined
    const timeoutMs = deadline - Date.now()
    if (timeoutMs <= 0) return undefined
    const picture = await fetchCapped(new URL(address, page).href, {
      maxBytes: PICTURE_BYTES,
      timeoutMs,
      log,
      dispatcher,
    })
    return sharp(picture.data)
      .resize(THUMBNAIL_PX, THUMBNAIL_PX, { fit: 'inside', withoutEnlargement: true })
      .jpeg({ quality: 60 })
      .toBuffer()
  }

  return {
    async preview(text) {
      const link = firstLink(text)
      if (!link) return undefined
      const deadline = Date.now() + settings.timeoutMs
      try {
        const page = await fetchCapped(link, {
          maxBytes: PAGE_BYTES,
          timeoutMs: settings.timeoutMs,
          log,
          dispatcher,
        })
        if (essence(page.contentType) !== 'text/html') {
          log.info(
            { contentType: essence(page.contentType) },
            'link preview left out: the link is not a web page',
          )
          return undefined
        }
        const info = await getPreviewFromContent({
          url: page.url.href,
          data: page.data.toString('utf8'),
          headers: { 'content-type': 'text/html' },
        })
        const title = 'title' in info ? info.title.trim() : ''
        if (!('title' in info) || !title) {
          log.info('link preview left out: the page has no title')
          return undefined
        }
        const picture = await thumbnail(info.images[0], page.url, deadline).catch((error: unknown) => {
          log.info({ reason: (error as Error).message }, 'link preview without a picture')
          return undefined
        })
        return {
          url: page.url.href,
          matchedText: link,
          title,
          description: info.description?.trim() || undefined,
          thumbnail: picture,
        }
      } catch (error) {
        // The reason names the problem, never the link (it may carry secrets).
        log.info({ reason: (error as Error).message }, 'link preview left out')
        return undefined
      }
    },
  }
}
