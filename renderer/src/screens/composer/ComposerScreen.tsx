import { type FormEvent, useState } from 'react'
import type { UploadAnswer } from '../../api/types'
import { useApi } from '../../app/api-context'
import { useAction } from '../../app/use-action'
import { AnswerView } from '../../components/AnswerView'
import { CopyButton } from '../../components/CopyButton'
import { ErrorNotice } from '../../components/ErrorNotice'
import { ScreenHeader } from '../../components/ScreenHeader'
import { InstanceSelect } from '../../components/InstanceSelect'
import {
  COMPOSER_KINDS,
  type ComposerDraft,
  composerParams,
  draftFromQuery,
  FILE_KINDS,
  TEXT_KINDS,
} from './composer-params'
import { curlCommand, curlUpload } from './curl-command'
import { ContactFields, LocationFields, ReplyFields } from './KindFields'
import { MediaFields, type MediaChoice } from './MediaFields'
import { RecipientOptions } from './RecipientOptions'
import { VoiceRecorder } from './VoiceRecorder'
import './ComposerScreen.css'

/** Sends any kind of message by hand, and shows the same request as curl. */
export function ComposerScreen({ apiBase, query }: { apiBase: string; query: URLSearchParams }) {
  const api = useApi()
  const [draft, setDraft] = useState<ComposerDraft>(() => draftFromQuery(query))
  const [media, setMedia] = useState<MediaChoice>({ source: 'url', url: '', file: null, filename: '' })
  const [uploadedUrl, setUploadedUrl] = useState<string | null>(null)
  const [answer, setAnswer] = useState<unknown>(null)
  const { busy, error, run, relabel } = useAction()
  const change = (next: Partial<ComposerDraft>) => setDraft((current) => ({ ...current, ...next }))
  const chooseMedia = (next: MediaChoice) => {
    setMedia(next)
    setUploadedUrl(null)
  }

  const withFile = FILE_KINDS.has(draft.kind)
  const fromFile = withFile && media.source === 'file'
  const mediaUrl = media.source === 'url' ? media.url : (uploadedUrl ?? '$MEDIA_URL')
  const params = composerParams({ ...draft, mediaUrl, filename: media.filename })

  const send = async (event: FormEvent) => {
    event.preventDefault()
    setAnswer(null)
    await run(async () => {
      let sent = params
      if (fromFile) {
        if (!media.file) throw new Error('Choose a file to send, record one, or drop one on the file field.')
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
    fromFile && !uploadedUrl
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
        <InstanceSelect value={draft.instanceId} onChange={(instanceId) => change({ instanceId })} />
        <div className="field">
          <label htmlFor="composer-number">Number or group id</label>
          <input
            id="composer-number"
            value={draft.number}
            required
            spellCheck={false}
            placeholder="e.g. 4915112345678 or 120363012345678901@g.us"
            aria-describedby="composer-number-hint"
            list="composer-recipients"
            onChange={(event) => change({ number: event.target.value.trim() })}
          />
          <RecipientOptions id="composer-recipients" instanceId={draft.instanceId} />
          <p id="composer-number-hint" className="hint">
            Digits with country code, or a group&apos;s id ending in <code>@g.us</code>; the field offers the
            instance&apos;s groups, contacts and chats.
          </p>
        </div>
        <fieldset className="segmented">
          <legend>Send</legend>
          {COMPOSER_KINDS.map(({ type, label }) => (
            <label key={type}>
              <input
                type="radio"
                name="composer-kind"
                value={type}
                checked={draft.kind === type}
                onChange={() => change({ kind: type })}
              />
              {label}
            </label>
          ))}
        </fieldset>
        {withFile ? (
          <MediaFields value={media} onChange={chooseMedia} documentName={draft.kind === 'media'} />
        ) : null}
        {draft.kind === 'voice' ? (
          <VoiceRecorder
            onRecorded={(file) => chooseMedia({ ...media, source: 'file', file, filename: '' })}
          />
        ) : null}
        {draft.kind === 'location' ? <LocationFields draft={draft} onChange={change} /> : null}
        {draft.kind === 'contacts' ? <ContactFields draft={draft} onChange={change} /> : null}
        {TEXT_KINDS.has(draft.kind) ? (
          <div className="field">
            <label htmlFor="composer-message">
              {draft.kind === 'text' ? 'Message' : 'Caption (optional)'}
            </label>
            <textarea
              id="composer-message"
              value={draft.message}
              required={draft.kind === 'text'}
              rows={4}
              onChange={(event) => change({ message: event.target.value })}
            />
          </div>
        ) : null}
        {draft.kind === 'text' || draft.kind === 'media' ? (
          <div className="composer-options">
            {draft.kind === 'text' ? (
              <label>
                <input
                  type="checkbox"
                  checked={draft.linkPreview}
                  onChange={(event) => change({ linkPreview: event.target.checked })}
                />
                Link preview
              </label>
            ) : (
              <label>
                <input
                  type="checkbox"
                  checked={draft.viewOnce}
                  onChange={(event) => change({ viewOnce: event.target.checked })}
                />
                View once (images and videos)
              </label>
            )}
          </div>
        ) : null}
        <ReplyFields draft={draft} onChange={change} />
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
