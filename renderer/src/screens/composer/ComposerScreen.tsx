import { type FormEvent, useState } from 'react'
import type { TokenInfo, TokenList, UploadAnswer } from '../../api/types'
import { useApi } from '../../app/api-context'
import { useAction } from '../../app/use-action'
import { useOperation } from '../../app/use-operation'
import { AnswerView } from '../../components/AnswerView'
import { CopyButton } from '../../components/CopyButton'
import { ErrorNotice } from '../../components/ErrorNotice'
import { ScreenHeader } from '../../components/ScreenHeader'
import { InstanceSelect } from '../../components/InstanceSelect'
import { formOf, replyFields } from '../../kinds/kind-forms'
import { KindChoice } from '../../kinds/KindFields'
import { COMPOSER_KINDS, type ComposerDraft, composerParams, draftFromQuery } from './composer-params'
import { curlCommand, curlUpload, TOKEN_VARIABLE, tokenComment } from './curl-command'
import { MediaFields, type MediaChoice } from './MediaFields'
import { RecipientOptions } from './RecipientOptions'
import { VoiceRecorder } from './VoiceRecorder'

const REPLY_FIELDS = replyFields({
  replyTo:
    'The id of an earlier message, sent or received, to quote; or pick “Reply in the composer” on a message in the event log.',
  mentions: '15551234567, 15557654321',
})

/** Whether the token may send from that instance: its reach takes it in and it holds the send scope. */
function maySend(token: TokenInfo, instanceId: string): boolean {
  const reaches = token.reach === 'all' || token.instance_ids.includes(instanceId)
  return reaches && token.scopes.includes('send')
}

/** Sends any kind of message by hand, and shows the same request as curl. */
export function ComposerScreen({ apiBase, query }: { apiBase: string; query: URLSearchParams }) {
  const api = useApi()
  const [draft, setDraft] = useState<ComposerDraft>(() => draftFromQuery(query))
  const [media, setMedia] = useState<MediaChoice>({ source: 'url', url: '', file: null, filename: '' })
  const [uploadedUrl, setUploadedUrl] = useState<string | null>(null)
  const [answer, setAnswer] = useState<unknown>(null)
  const { busy, error, run, relabel } = useAction()
  const [tokenList] = useOperation((client) => client.call<TokenList>('admin/tokens'), 'admin/tokens')
  const [pickedToken, setPickedToken] = useState<string>('')
  const change = (next: Partial<ComposerDraft>) =>
    setDraft((current) => ({ ...current, ...next }) as ComposerDraft)
  const chooseMedia = (next: MediaChoice) => {
    setMedia(next)
    setUploadedUrl(null)
  }

  const form = formOf(COMPOSER_KINDS, draft.kind)
  const withFile = form?.fields.some((field) => field.input === 'file') ?? false
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
  const senders =
    tokenList.status === 'ready'
      ? tokenList.data.tokens.filter((token) => maySend(token, draft.instanceId))
      : []
  const curlToken = senders.find((token) => token.id === pickedToken) ?? senders[0] ?? null
  const sendCommand = curlCommand(apiBase, 'send_message', params)
  const commands =
    fromFile && !uploadedUrl
      ? `${curlUpload(apiBase, media.file?.name ?? 'file')}\n${sendCommand}`
      : sendCommand
  const curl = `${tokenComment(curlToken)}\n${commands}`

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
        <KindChoice
          forms={COMPOSER_KINDS}
          replyFields={REPLY_FIELDS}
          idPrefix="composer"
          values={draft}
          onChange={(name, value) => change({ [name]: value })}
          renderFile={(field) => (
            <>
              <MediaFields value={media} onChange={chooseMedia} documentName={Boolean(field.documentName)} />
              {field.record ? (
                <VoiceRecorder
                  onRecorded={(file) => chooseMedia({ ...media, source: 'file', file, filename: '' })}
                />
              ) : null}
            </>
          )}
        />
        <div className="actions">
          <button type="submit" className="primary" disabled={busy !== null}>
            {busy ?? 'Send'}
          </button>
        </div>
      </form>
      {error ? <ErrorNotice error={error} context="Not sent" /> : null}
      {answer ? <AnswerView answer={answer} /> : null}
      <div className="field">
        <label htmlFor="composer-curl-token">Token for the curl command</label>
        <select
          id="composer-curl-token"
          value={curlToken?.id ?? ''}
          onChange={(event) => setPickedToken(event.target.value)}
          aria-describedby="composer-curl-token-hint"
        >
          {senders.length === 0 ? <option value="">No token may send from this instance</option> : null}
          {senders.map((token) => (
            <option key={token.id} value={token.id}>
              {token.label} ({token.id})
            </option>
          ))}
        </select>
        <p id="composer-curl-token-hint" className="hint">
          The command reads it from <code>${TOKEN_VARIABLE}</code>, the variable the server reads at start; a
          token&apos;s value is shown once, when it is created on the Tokens screen. Only tokens that reach
          this instance with the send scope are offered.
        </p>
      </div>
      <figure className="answer">
        <figcaption>
          The same request with curl <CopyButton text={curl} label="curl command" />
        </figcaption>
        <pre tabIndex={0}>{curl}</pre>
      </figure>
    </section>
  )
}
