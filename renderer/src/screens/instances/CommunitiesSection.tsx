import { type FormEvent, useState } from 'react'
import type { CommunityList, GroupSummaryView } from '../../api/types'
import { useApi } from '../../app/api-context'
import { useLiveEvents } from '../../app/feed-context'
import { useAction } from '../../app/use-action'
import { useOperation } from '../../app/use-operation'
import { ErrorNotice } from '../../components/ErrorNotice'

/**
 * The account's communities inside the groups view: each with its announcement group and linked groups,
 * a group this account admins linked or unlinked, and a new community made.
 */
export function CommunitiesSection({
  instanceId,
  groups,
}: {
  instanceId: string
  groups: readonly GroupSummaryView[]
}) {
  const api = useApi()
  const [communities, reload] = useOperation(
    async (api) => (await api.call<CommunityList>('communities', { instance_id: instanceId })).communities,
    `communities/${instanceId}`,
  )
  useLiveEvents((event) => {
    if (event.instance_id !== instanceId) return
    if (event.event.startsWith('community.') || event.event === 'group.joined') void reload()
  })
  const { busy, error, run } = useAction()
  const [subject, setSubject] = useState('')
  const [choice, setChoice] = useState<Record<string, string>>({})
  const linkable = groups.filter(
    (group) => group.is_admin && !group.is_community && !group.is_announcement && !group.community_id,
  )
  const act = async (operation: string, params: Record<string, unknown>) => {
    const done = await run(() => api.call(operation, { instance_id: instanceId, ...params }), operation)
    if (done) void reload()
    return done
  }
  const create = async (event: FormEvent) => {
    event.preventDefault()
    if (await act('create_community', { subject })) setSubject('')
  }
  return (
    <section aria-labelledby="communities-title">
      <h3 id="communities-title">Communities</h3>
      {communities.status === 'failed' ? (
        <ErrorNotice error={communities.error} context="Could not read the communities" />
      ) : null}
      {error ? <ErrorNotice error={error} context="The network refused it" /> : null}
      <ul aria-label="Communities">
        {(communities.status === 'ready' ? communities.data : []).map((community) => (
          <li key={community.id}>
            <strong>{community.subject || community.id}</strong>
            <span className="muted">
              {' '}
              {community.size} members{community.is_admin ? ', admin' : ''}
            </span>
            <ul aria-label={`Groups of ${community.subject}`}>
              {community.groups.map((group) => (
                <li key={group.id}>
                  {group.subject || group.id}
                  <span className="muted">{group.is_announcement ? ' announcements' : ''}</span>
                  {community.is_admin && !group.is_announcement ? (
                    <button
                      type="button"
                      disabled={busy !== null}
                      onClick={() =>
                        void act('unlink_group', { community_id: community.id, group_id: group.id })
                      }
                    >
                      Unlink
                    </button>
                  ) : null}
                </li>
              ))}
            </ul>
            {community.is_admin && linkable.length > 0 ? (
              <form
                aria-label={`Link a group to ${community.subject}`}
                onSubmit={(event) => {
                  event.preventDefault()
                  const group = choice[community.id] ?? linkable[0]?.id
                  if (group) void act('link_group', { community_id: community.id, group_id: group })
                }}
              >
                <label htmlFor={`link-${community.id}`}>Group to link</label>
                <select
                  id={`link-${community.id}`}
                  value={choice[community.id] ?? linkable[0]?.id}
                  onChange={(event) => setChoice({ ...choice, [community.id]: event.target.value })}
                >
                  {linkable.map((group) => (
                    <option key={group.id} value={group.id}>
                      {group.subject || group.id}
                    </option>
                  ))}
                </select>
                <button type="submit" disabled={busy !== null}>
                  Link
                </button>
              </form>
            ) : null}
          </li>
        ))}
      </ul>
      <form aria-label="New community" onSubmit={(event) => void create(event)}>
        <label htmlFor={`community-subject-${instanceId}`}>New community</label>
        <input
          id={`community-subject-${instanceId}`}
          value={subject}
          required
          maxLength={100}
          onChange={(event) => setSubject(event.target.value)}
        />
        <button type="submit" disabled={busy !== null}>
          Create community
        </button>
      </form>
    </section>
  )
}
