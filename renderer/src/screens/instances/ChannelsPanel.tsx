import { type FormEvent, useState } from 'react'
import type { ChannelList, ChannelPostList } from '../../api/types'
import { useApi } from '../../app/api-context'
import { useLiveEvents } from '../../app/feed-context'
import { useAction } from '../../app/use-action'
import { useOperation } from '../../app/use-operation'
import { ErrorNotice } from '../../components/ErrorNotice'

const ROLES = { owner: 'owner', admin: 'admin', follower: 'following', guest: 'not following' } as const

/** A channel's recent posts, read when its entry is opened; the owner posts from here. */
function Posts({ instanceId, channelId, own }: { instanceId: string; channelId: string; own: boolean }) {
  const api = useApi()
  const [posts, reload] = useOperation(
    async (api) =>
      (await api.call<ChannelPostList>('channel_posts', { instance_id: instanceId, channel_id: channelId }))
        .posts,
    `channel_posts/${instanceId}/${channelId}`,
  )
  useLiveEvents((event) => {
    if (event.instance_id === instanceId && event.event === 'channel.post') void reload()
  })
  const [text, setText] = useState('')
  const { busy, error, run } = useAction()
  const post = async (event: FormEvent) => {
    event.preventDefault()
    const sent = await run(
      () => api.call('post_channel', { instance_id: instanceId, channel_id: channelId, text }),
      'Posting…',
    )
    if (sent) {
      setText('')
      void reload()
    }
  }
  return (
    <div className="stack">
      {posts.status === 'loading' ? <p className="loading">Reading the posts…</p> : null}
      {posts.status === 'failed' ? (
        <ErrorNotice error={posts.error} context="Could not read the posts" />
      ) : null}
      {posts.status === 'ready' && posts.data.length === 0 ? <p className="hint">No posts yet.</p> : null}
      <ol aria-label={`Posts of ${channelId}`}>
        {(posts.status === 'ready' ? posts.data : []).map((item) => (
          <li key={item.post_id ?? item.message_id}>
            {item.text ?? item.caption ?? `(${item.type})`}
            {item.reactions.length ? (
              <span className="muted">
                {' '}
                {item.reactions.map((reaction) => `${reaction.emoji} ${reaction.count}`).join(' ')}
              </span>
            ) : null}
          </li>
        ))}
      </ol>
      {own ? (
        <form className="stack" onSubmit={(event) => void post(event)}>
          <div className="field">
            <label htmlFor={`post-${channelId}`}>New post</label>
            <input id={`post-${channelId}`} value={text} onChange={(event) => setText(event.target.value)} />
          </div>
          <div className="actions">
            <button type="submit" disabled={busy !== null}>
              {busy ?? 'Post'}
            </button>
          </div>
          {error ? <ErrorNotice error={error} context="Not posted" /> : null}
        </form>
      ) : null}
    </div>
  )
}

/** Follows a channel by its link, invite code or id, or creates one this account owns. */
function ChannelForms({ instanceId, onChanged }: { instanceId: string; onChanged: () => void }) {
  const api = useApi()
  const [channel, setChannel] = useState('')
  const [name, setName] = useState('')
  const { busy, error, run } = useAction()
  const submit = async (event: FormEvent, operation: 'follow_channel' | 'create_channel') => {
    event.preventDefault()
    const params = operation === 'follow_channel' ? { channel } : { name }
    const done = await run(() => api.call(operation, { instance_id: instanceId, ...params }), 'Working…')
    if (!done) return
    setChannel('')
    setName('')
    onChanged()
  }
  return (
    <div className="stack">
      <form className="stack" onSubmit={(event) => void submit(event, 'follow_channel')}>
        <div className="field">
          <label htmlFor="channel-follow">Follow a channel</label>
          <input
            id="channel-follow"
            value={channel}
            placeholder="https://whatsapp.com/channel/…"
            onChange={(event) => setChannel(event.target.value)}
          />
        </div>
        <div className="actions">
          <button type="submit" disabled={busy !== null || !channel.trim()}>
            Follow
          </button>
        </div>
      </form>
      <form className="stack" onSubmit={(event) => void submit(event, 'create_channel')}>
        <div className="field">
          <label htmlFor="channel-name">New channel</label>
          <input
            id="channel-name"
            value={name}
            maxLength={100}
            onChange={(event) => setName(event.target.value)}
          />
        </div>
        <div className="actions">
          <button type="submit" disabled={busy !== null || !name.trim()}>
            Create channel
          </button>
        </div>
      </form>
      {error ? <ErrorNotice error={error} context="Channel not changed" /> : null}
    </div>
  )
}

/** The channels (WhatsApp newsletters) the account follows or owns, their posts on demand. */
export function ChannelsPanel({ instanceId, connected }: { instanceId: string; connected: boolean }) {
  const api = useApi()
  const [channels, reload] = useOperation(
    async (api) =>
      connected ? (await api.call<ChannelList>('channels', { instance_id: instanceId })).channels : [],
    `channels/${instanceId}/${connected}`,
  )
  const [open, setOpen] = useState<Set<string>>(new Set())
  const { busy, error, run } = useAction()
  const unfollow = async (channel: string) => {
    if (await run(() => api.call('unfollow_channel', { instance_id: instanceId, channel }), channel))
      void reload()
  }
  return (
    <section aria-labelledby="channels-title" className="stack">
      <h2 id="channels-title">Channels</h2>
      {!connected ? (
        <p className="hint">The channels are read from the network: connect the instance.</p>
      ) : null}
      {channels.status === 'failed' ? (
        <ErrorNotice error={channels.error} context="Could not read the channels" />
      ) : null}
      {channels.status === 'ready' && connected && channels.data.length === 0 ? (
        <p className="hint">The account follows no channel.</p>
      ) : null}
      <ul aria-label="Channels">
        {(channels.status === 'ready' ? channels.data : []).map((channel) => (
          <li key={channel.id}>
            {channel.name || channel.id}
            <span className="muted">
              {' '}
              {ROLES[channel.role]}, {channel.followers} followers
            </span>
            {channel.role === 'follower' ? (
              <button type="button" disabled={busy !== null} onClick={() => void unfollow(channel.id)}>
                Unfollow
              </button>
            ) : null}
            <details
              onToggle={(event) => {
                const isOpen = (event.target as HTMLDetailsElement).open
                setOpen((current) => {
                  const next = new Set(current)
                  if (isOpen) next.add(channel.id)
                  else next.delete(channel.id)
                  return next
                })
              }}
            >
              <summary>Posts</summary>
              {open.has(channel.id) ? (
                <Posts
                  instanceId={instanceId}
                  channelId={channel.id}
                  own={channel.role === 'owner' || channel.role === 'admin'}
                />
              ) : null}
            </details>
          </li>
        ))}
      </ul>
      {error ? <ErrorNotice error={error} context="Not unfollowed" /> : null}
      {connected ? <ChannelForms instanceId={instanceId} onChanged={() => void reload()} /> : null}
    </section>
  )
}
