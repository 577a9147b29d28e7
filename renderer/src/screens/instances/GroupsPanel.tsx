import { useState } from 'react'
import type { GroupAnswer, GroupList } from '../../api/types'
import { useLiveEvents } from '../../app/feed-context'
import { hrefWithQuery } from '../../app/routes'
import { useOperation } from '../../app/use-operation'
import { ErrorNotice } from '../../components/ErrorNotice'
import { CommunitiesSection } from './CommunitiesSection'

const ROLES = { superadmin: 'creator', admin: 'admin', member: '' } as const

/** A group's members, read when its entry is opened. */
function Members({ instanceId, groupId }: { instanceId: string; groupId: string }) {
  const [group] = useOperation(
    async (api) =>
      (await api.call<GroupAnswer>('group', { instance_id: instanceId, group_id: groupId })).group,
    `group/${instanceId}/${groupId}`,
  )
  if (group.status === 'loading') return <p className="loading">Reading the members…</p>
  if (group.status === 'failed')
    return <ErrorNotice error={group.error} context="Could not read the members" />
  return (
    <ul aria-label={`Members of ${group.data.subject || groupId}`}>
      {group.data.participants.map((member) => (
        <li key={member.jid}>
          {member.phone ? `+${member.phone}` : member.jid}
          {ROLES[member.role] ? <span className="muted"> {ROLES[member.role]}</span> : null}
        </li>
      ))}
    </ul>
  )
}

/** The groups the account is in, each a link to write there, with its members on demand. */
export function GroupsPanel({ instanceId, connected }: { instanceId: string; connected: boolean }) {
  const [groups, reload] = useOperation(
    async (api) =>
      connected ? (await api.call<GroupList>('groups', { instance_id: instanceId })).groups : [],
    `groups/${instanceId}/${connected}`,
  )
  const [open, setOpen] = useState<Set<string>>(new Set())
  useLiveEvents((event) => {
    if (event.instance_id !== instanceId) return
    if (event.event.startsWith('group.') || event.event.startsWith('community.')) void reload()
  })
  const write = (number: string) => hrefWithQuery('composer', { instance_id: instanceId, number })
  return (
    <section aria-labelledby="groups-title">
      <h2 id="groups-title">Groups</h2>
      {!connected ? (
        <p className="hint">The groups are read from the network: connect the instance.</p>
      ) : null}
      {groups.status === 'failed' ? (
        <ErrorNotice error={groups.error} context="Could not read the groups" />
      ) : null}
      {groups.status === 'ready' && connected && groups.data.length === 0 ? (
        <p className="hint">The account is in no group.</p>
      ) : null}
      <ul aria-label="Groups">
        {(groups.status === 'ready' ? groups.data : []).map((group) => (
          <li key={group.id}>
            {group.is_community ? (
              // A community takes no messages: its announcement group and linked groups do.
              <strong>{group.subject || group.id}</strong>
            ) : (
              <a href={write(group.id)}>{group.subject || group.id}</a>
            )}
            <span className="muted">
              {' '}
              {group.size} members{group.is_admin ? ', admin' : ''}
              {group.is_community ? ', community' : ''}
              {group.is_announcement ? ', announcements' : ''}
              {group.community_id && !group.is_announcement ? ', in a community' : ''}
            </span>
            <details
              onToggle={(event) => {
                const isOpen = (event.target as HTMLDetailsElement).open
                setOpen((current) => {
                  const next = new Set(current)
                  if (isOpen) next.add(group.id)
                  else next.delete(group.id)
                  return next
                })
              }}
            >
              <summary>Members</summary>
              {open.has(group.id) ? <Members instanceId={instanceId} groupId={group.id} /> : null}
            </details>
          </li>
        ))}
      </ul>
      {connected && groups.status === 'ready' ? (
        <CommunitiesSection instanceId={instanceId} groups={groups.data} />
      ) : null}
    </section>
  )
}
