import { useEffect, useState } from 'react'
import type { MessageView } from '../../api/types'
import { useApi } from '../../app/api-context'
import { formatSize } from '../composer/FileDropZone'

type Media = NonNullable<MessageView['media']>

/** The file of a message as an object URL, read with the window's credential (null while it loads). */
function useFileUrl(url: string | null): { src: string | null; failed: boolean } {
  const api = useApi()
  const [src, setSrc] = useState<string | null>(null)
  const [failed, setFailed] = useState(false)
  useEffect(() => {
    if (!url) return
    let made: string | null = null
    let current = true
    api.fetchBlob(url).then(
      (blob) => {
        if (!current) return
        made = URL.createObjectURL(blob)
        setSrc(made)
      },
      () => current && setFailed(true),
    )
    return () => {
      current = false
      if (made) URL.revokeObjectURL(made)
    }
  }, [api, url])
  return { src, failed }
}

function seconds(media: Media): string {
  if (media.seconds === null) return ''
  const whole = Math.round(media.seconds)
  return `${Math.floor(whole / 60)}:${String(whole % 60).padStart(2, '0')}`
}

/** An image or a sticker inline, a video or a sound with its player, a document as a download. */
export function MediaView({ message }: { message: MessageView }) {
  const media = message.media!
  const inline = message.type === 'image' || message.type === 'sticker'
  const player = message.type === 'video' || message.type === 'audio'
  const { src, failed } = useFileUrl(inline || player ? media.download_url : null)
  if (message.view_once) {
    return (
      <p className="thread-kind">
        View once {message.type === 'video' ? 'video' : 'photo'}: open it on the phone
      </p>
    )
  }
  if (message.type === 'document') return <DocumentDownload media={media} />
  if (!media.download_url || failed) {
    return <p className="thread-kind">[{message.type}] the file is not kept here</p>
  }
  if (inline) {
    const label = message.type === 'sticker' ? 'Sticker' : (message.caption ?? 'Image')
    return src ? (
      <img className={`thread-${message.type}`} src={src} alt={label} />
    ) : (
      <p className="thread-kind">Loading the {message.type}…</p>
    )
  }
  if (message.type === 'audio') {
    const name = media.voice_note ? 'Voice note' : 'Audio'
    return (
      <div className="thread-audio">
        <span>
          {name} {seconds(media)}
        </span>
        {src ? <audio controls src={src} aria-label={`${name} ${seconds(media)}`} /> : null}
      </div>
    )
  }
  if (message.type === 'video') {
    return src ? (
      <video
        className="thread-video"
        controls
        src={src}
        aria-label={`${media.video_note ? 'Video note' : 'Video'} ${seconds(media)}`}
      />
    ) : (
      <p className="thread-kind">Loading the video…</p>
    )
  }
  return <DocumentDownload media={media} />
}

function DocumentDownload({ media }: { media: Media }) {
  const api = useApi()
  const [problem, setProblem] = useState(false)
  const name = media.filename ?? 'document'
  const size = media.size !== null ? ` (${formatSize(media.size)})` : ''
  if (!media.download_url) {
    return (
      <p className="thread-document">
        📄 {name}
        {size}
      </p>
    )
  }
  const download = async () => {
    try {
      const blob = await api.fetchBlob(media.download_url!)
      const link = document.createElement('a')
      link.href = URL.createObjectURL(blob)
      link.download = name
      link.click()
      setTimeout(() => URL.revokeObjectURL(link.href), 10_000)
    } catch {
      setProblem(true)
    }
  }
  return (
    <p className="thread-document">
      <button type="button" onClick={() => void download()}>
        Download {name}
        {size}
      </button>
      {problem ? <span role="alert"> The file could not be read.</span> : null}
    </p>
  )
}
