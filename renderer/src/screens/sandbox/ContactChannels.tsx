import { type FormEvent, useState } from 'react'
import { useApi } from '../../app/api-context'
import { useAction } from '../../app/use-action'
import { useOperation } from '../../app/use-operation'
import { ErrorNotice } from '../../components/ErrorNotice'

interface SandboxChannel {
  id: string
  name: string
  invite: string
  owner: string
  followers: string[]
  posts: Array<{ server_id: number; text: string | null }>
}

/** The contact's own channels: make one, post to it (its followers' devices receive the post). */
export function ContactChannels({ phone }: { phone: string }) {
  const api = useApi()
  const [channels, reload] = useOperation(
    async (client) =>
      (await client.request<{ channels: SandboxChannel[] }>('GET', 'sandbox/channels')).channels.filter(
        (channel) => channel.owner === phone,
      ),
    `sandbox/channels/${phone}`,
  )
  const [name, setName] = useState('')
  const [text, setText] = useState('')
  const [target, setTarget] = useState('')
  const { busy, error, run } = useAction()
  const account = `sandbox/accounts/${encodeURIComponent(phone)}/channels`
  const own = channels.status === 'ready' ? channels.data : []
  const channelId = target || own[0]?.id || ''
  const create = async (event: FormEvent) => {
    event.preventDefault()
    if (await run(() => api.request('POST', account, { json: { name } }), 'Creating…')) {
      setName('')
      void reload()
    }
  }
  const post = async (event: FormEvent) => {
    event.preventDefault()
    const path = `${account}/${encodeURIComponent(channelId)}/posts`
    if (await run(() => api.request('POST', path, { json: { text } }), 'Posting…')) {
      setText('')
      void reload()
    }
  }
  return (
    <section className="stack" aria-labelledby={`channels-${phone}`}>
      <h3 id={`channels-${phone}`}>Channels</h3>
      {channels.status === 'failed' ? <ErrorNotice error={channels.error} context="Sandbox" /> : null}
      <ul aria-label="The contact's channels">
        {own.map((channel) => (
          <li key={channel.id}>
            {channel.name} <span className="muted">invite {channel.invite}</span>
            <span className="muted">
              {' '}
              {channel.followers.length} followers, {channel.posts.length} posts
            </span>
          </li>
        ))}
      </ul>
      <form className="stack" onSubmit={(event) => void create(event)}>
        <div className="field">
          <label htmlFor={`channel-name-${phone}`}>New channel</label>
          <input
            id={`channel-name-${phone}`}
            value={name}
            onChange={(event) => setName(event.target.value)}
          />
        </div>
        <div className="actions">
          <button type="submit" disabled={busy !== null || !name.trim()}>
            Create channel
          </button>
        </div>
      </form>
      {own.length > 0 ? (
        <form className="stack" onSubmit={(event) => void post(event)}>
          <div className="field">
            <label htmlFor={`channel-target-${phone}`}>Channel</label>
            <select
              id={`channel-target-${phone}`}
              value={channelId}
              onChange={(event) => setTarget(event.target.value)}
            >
              {own.map((channel) => (
                <option key={channel.id} value={channel.id}>
                  {channel.name}
                </option>
              ))}
            </select>
          </div>
          <div className="field">
            <label htmlFor={`channel-post-${phone}`}>Post</label>
            <input
              id={`channel-post-${phone}`}
              value={text}
              onChange={(event) => setText(event.target.value)}
            />
          </div>
          <div className="actions">
            <button type="submit" disabled={busy !== null || !text.trim()}>
              {busy ?? 'Post to the channel'}
            </button>
          </div>
        </form>
      ) : null}
      {error ? <ErrorNotice error={error} context="Channel not changed" /> : null}
    </section>
  )
}
