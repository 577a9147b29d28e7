import { type FormEvent, useState } from 'react'
import type { UploadAnswer } from '../../api/types'
import { useApi } from '../../app/api-context'
import { useAction } from '../../app/use-action'
import { AnswerView } from '../../components/AnswerView'
import { CopyButton } from '../../components/CopyButton'
import { ErrorNotice } from '../../components/ErrorNotice'
import { ScreenHeader } from '../../components/ScreenHeader'
import { InstanceSelect } from '../../components/InstanceSelect'
import { curlCommand, curlUpload } from './curl-command'
import { MediaFields, type MediaChoice } from './MediaFields'

/** Sends a text or a file by hand, and shows the same request as curl. */
export function ComposerScreen({ apiBase }: { apiBase: string }) {
  const api = useApi()
  const [instanceId, setInstanceId] = useState('')
  const [number, setNumber] = useState('')
  const [message, setMessage] = useState('')
  const [kind, setKind] = useState<'text' | 'media'>('text')
  const [media, setMedia] = useState<MediaChoice>({ source: 'url', url: '', file: null, filename: '' })
  const [uploadedUrl, setUploadedUrl] = useState<string | null>(null)
  const [answer, setAnswer] = useState<unknown>(null)
  const { busy, error, run, relabel } = useAction()

  const mediaUrl = media.source === 'url' ? media.url : (uploadedUrl ?? '$MEDIA_URL')
  const params: Record<string, unknown> =
    kind === 'text'
      ? { instance_id: instanceId, number, type: 'text', message }
      : {
          instance_id: instanceId,
          number,
          type: 'media',
          media_url: mediaUrl,
          ...(message ? { message } : {}),
          ...(media.filename ? { filename: media.filename } : {}),
        }

  const send = async (event: FormEvent) => {
    event.preventDefault()
    setAnswer(null)
    await run(async () => {
      let sent = params
      if (kind === 'media' && media.source === 'file') {
        if (!media.file) throw new Error('Choose a file to send, or drop one on the file field.')
        relabel('Uploading…')
        const upload = await api.request<UploadAnswer>('POST', 'uploads', { file: media.file })
        setUploadedUrl(upload.url)
        sent = { ...params, media_url: upload.url }
      }
      relabel('Sending…')
      setAnswer(await api.call('send_message', sent))
    }, 'Sending…')
  }
  const sendCommand = curlCommand(apiBase, 'send_message', params)
  const curl =
    kind === 'media' && media.source === 'file' && !uploadedUrl
      ? `${curlUpload(apiBase, media.file?.name ?? 'file')}\n${sendCommand}`
      : sendCommand

  return (
    <section aria-labelledby="composer-title">
      <ScreenHeader
        id="composer-title"
        title="Composer"
        lead="Send a test message from a connected instance, exactly as a script would."
      />
      <form className="stack" onSubmit={(event) => void send(event)}>
        <InstanceSelect value={instanceId} onChange={setInstanceId} />
        <div className="field">
          <label htmlFor="composer-number">Number or group id</label>
          <input
            id="composer-number"
            value={number}
            required
            spellCheck={false}
            placeholder="e.g. 4915112345678 or 120363012345678901@g.us"
            aria-describedby="composer-number-hint"
            onChange={(event) => setNumber(event.target.value.trim())}
          />
          <p id="composer-number-hint" className="hint">
            Digits with country code, or a group&apos;s id ending in <code>@g.us</code> (the API does not list
            an account&apos;s groups yet: take the id from a message.received event of the group).
          </p>
        </div>
        <fieldset className="segmented">
          <legend>Send</legend>
          {(['text', 'media'] as const).map((choice) => (
            <label key={choice}>
              <input
                type="radio"
                name="composer-kind"
                value={choice}
                checked={kind === choice}
                onChange={() => setKind(choice)}
              />
              {choice === 'text' ? 'Text' : 'A file (image, video, audio or document)'}
            </label>
          ))}
        </fieldset>
        {kind === 'media' ? (
          <MediaFields
            value={media}
            onChange={(next) => {
              setMedia(next)
              setUploadedUrl(null)
            }}
          />
        ) : null}
        <div className="field">
          <label htmlFor="composer-message">{kind === 'text' ? 'Message' : 'Caption (optional)'}</label>
          <textarea
            id="composer-message"
            value={message}
            required={kind === 'text'}
            rows={4}
            onChange={(event) => setMessage(event.target.value)}
          />
        </div>
        <div className="actions">
          <button type="submit" className="primary" disabled={busy !== null}>
            {busy ?? 'Send'}
          </button>
        </div>
      </form>
      {error ? <ErrorNotice error={error} context="Not sent" /> : null}
      {answer ? <AnswerView answer={answer} /> : null}
      <figure className="answer">
        <figcaption>
          The same request with curl <CopyButton text={curl} label="curl command" />
        </figcaption>
        <pre tabIndex={0}>{curl}</pre>
      </figure>
    </section>
  )
}
