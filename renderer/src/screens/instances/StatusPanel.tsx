import { type FormEvent, useState } from 'react'
import type { UploadAnswer } from '../../api/types'
import { useApi } from '../../app/api-context'
import { useLiveEvents } from '../../app/feed-context'
import { useAction } from '../../app/use-action'
import { useOperation } from '../../app/use-operation'
import { ErrorNotice } from '../../components/ErrorNotice'
import { messageSummary } from '../events/message-summary'

/** A status update as statuses lists it (the message fields the panel shows). */
interface StatusItem {
  id: string
  from_me: boolean
  sender_phone: string | null
  push_name: string | null
  timestamp: string
}

/** The fonts a text status may use, by the network's numbers (post_status's `font`). */
const FONTS: ReadonlyArray<readonly [string, string]> = [
  ['', 'Default'],
  ['1', 'Sans'],
  ['2', 'Script'],
  ['6', 'Bold'],
  ['7', 'Morning breeze'],
  ['8', 'Calistoga'],
  ['9', 'Exo 2'],
  ['10', 'Courier Prime'],
]

const STATUS_EVENTS = new Set(['status.received', 'status.sent'])

/** Posting a status update (text with its look, or a file) and the statuses seen, each contact's to view. */
export function StatusPanel({ instanceId, connected }: { instanceId: string; connected: boolean }) {
  const [statuses, reload] = useOperation(
    async (client) =>
      (await client.call<{ statuses: StatusItem[] }>('statuses', { instance_id: instanceId })).statuses,
    `statuses/${instanceId}`,
  )
  useLiveEvents((event) => {
    if (event.instance_id === instanceId && STATUS_EVENTS.has(event.event)) void reload()
  })
  return (
    <section aria-labelledby="statuses-title" className="stack">
      <h2 id="statuses-title">Status updates</h2>
      {connected ? <PostStatusForm instanceId={instanceId} /> : null}
      {statuses.status === 'failed' ? (
        <ErrorNotice error={statuses.error} context="Could not read the status updates" />
      ) : null}
      {statuses.status === 'ready' && statuses.data.length === 0 ? (
        <p className="hint">None yet: contacts’ statuses appear here while “Ignore status updates” is off.</p>
      ) : null}
      <ul aria-label="Status updates">
        {(statuses.status === 'ready' ? statuses.data : []).map((status) => (
          <li key={status.id}>
            <strong>{status.from_me ? 'You' : (status.push_name ?? `+${status.sender_phone ?? '?'}`)}</strong>{' '}
            <span className="muted">{messageSummary(status as unknown as Record<string, unknown>)}</span>
            {!status.from_me && connected ? (
              <ViewButton instanceId={instanceId} statusId={status.id} />
            ) : null}
          </li>
        ))}
      </ul>
    </section>
  )
}

/** view_status: the poster sees the status viewed. */
function ViewButton({ instanceId, statusId }: { instanceId: string; statusId: string }) {
  const api = useApi()
  const [viewed, setViewed] = useState(false)
  const { busy, error, run } = useAction()
  const view = async () => {
    const answer = await run(
      () => api.call('view_status', { instance_id: instanceId, status_id: statusId }),
      'Viewing…',
    )
    if (answer) setViewed(true)
  }
  return (
    <>
      {' '}
      <button type="button" disabled={busy !== null || viewed} onClick={() => void view()}>
        {viewed ? 'Viewed' : (busy ?? 'View')}
      </button>
      {error ? <ErrorNotice error={error} context="Not viewed" /> : null}
    </>
  )
}

/** post_status from the window: a text with its background and font, or an image, video or voice file. */
function PostStatusForm({ instanceId }: { instanceId: string }) {
  const api = useApi()
  const [text, setText] = useState('')
  const [background, setBackground] = useState('#1e6f5c')
  const [font, setFont] = useState('')
  const [file, setFile] = useState<File | null>(null)
  const [numbers, setNumbers] = useState('')
  const [posted, setPosted] = useState<string[] | null>(null)
  const { busy, error, run, relabel } = useAction()
  const post = async (event: FormEvent) => {
    event.preventDefault()
    setPosted(null)
    const answer = await run(async () => {
      const params: Record<string, unknown> = { instance_id: instanceId }
      const list = numbers
        .split(/[\s,]+/)
        .map((number) => number.trim())
        .filter(Boolean)
      if (list.length) params.numbers = list
      if (file) {
        relabel('Uploading…')
        params.media_url = (await api.request<UploadAnswer>('POST', 'uploads', { file })).url
        params.type = file.type.startsWith('video/')
          ? 'video'
          : file.type.startsWith('audio/')
            ? 'voice'
            : 'image'
        if (text && params.type !== 'voice') params.message = text
      } else {
        Object.assign(params, { type: 'text', message: text, background_color: background })
        if (font) params.font = Number(font)
      }
      relabel('Posting…')
      return api.call<{ recipients: string[] }>('post_status', params)
    }, 'Posting…')
    if (answer) setPosted(answer.recipients)
  }
  return (
    <form className="stack" onSubmit={(event) => void post(event)} aria-label="Post a status">
      <div className="field">
        <label htmlFor="status-text">Text or caption</label>
        <input
          id="status-text"
          value={text}
          maxLength={700}
          onChange={(event) => setText(event.target.value)}
        />
      </div>
      <div className="field">
        <label htmlFor="status-background">Background</label>
        <input
          id="status-background"
          type="color"
          value={background}
          onChange={(event) => setBackground(event.target.value)}
        />
      </div>
      <div className="field">
        <label htmlFor="status-font">Font</label>
        <select id="status-font" value={font} onChange={(event) => setFont(event.target.value)}>
          {FONTS.map(([value, label]) => (
            <option key={value} value={value}>
              {label}
            </option>
          ))}
        </select>
      </div>
      <div className="field">
        <label htmlFor="status-file">Image, video or voice (instead of a text)</label>
        <input
          id="status-file"
          type="file"
          accept="image/*,video/*,audio/*"
          onChange={(event) => setFile(event.target.files?.[0] ?? null)}
        />
      </div>
      <div className="field">
        <label htmlFor="status-numbers">Only to (numbers)</label>
        <input
          id="status-numbers"
          value={numbers}
          placeholder="Every contact"
          aria-describedby="status-numbers-hint"
          onChange={(event) => setNumbers(event.target.value)}
        />
        <p id="status-numbers-hint" className="hint">
          Numbers with country code, separated by commas; empty: every contact.
        </p>
      </div>
      <div className="actions">
        <button type="submit" disabled={busy !== null}>
          {busy ?? 'Post status'}
        </button>
      </div>
      {posted ? (
        <p role="status">{`Posted to ${posted.length} ${posted.length === 1 ? 'contact' : 'contacts'}.`}</p>
      ) : null}
      {error ? <ErrorNotice error={error} context="Status not posted" /> : null}
    </form>
  )
}
