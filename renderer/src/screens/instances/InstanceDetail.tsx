import { hrefFor } from '../../app/routes'
import { ErrorNotice } from '../../components/ErrorNotice'
import { ScreenHeader } from '../../components/ScreenHeader'
import { AccountAvatar } from './AccountAvatar'
import { ChatsPanel } from './ChatsPanel'
import { ChannelsPanel } from './ChannelsPanel'
import { ChatTools } from './ChatTools'
import { GroupsPanel } from './GroupsPanel'
import { ProfileForm } from './ProfileForm'
import { StatusPanel } from './StatusPanel'
import { InstanceActions } from './InstanceActions'
import { InstanceSettingsForm } from './InstanceSettingsForm'
import { InstanceAccessForm } from './InstanceAccessForm'
import { instanceLabel } from './instance-label'
import { LinkPanel } from './link/LinkPanel'
import { StateBadge, nextStep } from './StateBadge'
import { useInstance } from './use-instances'

function time(seconds: number | null | undefined): string {
  return seconds ? new Date(seconds * 1000).toLocaleString() : '—'
}

/** One instance: its account, state and cause, last error, actions, and linking while it is unlinked. */
export function InstanceDetail({ instanceId, startLinking }: { instanceId: string; startLinking: boolean }) {
  const [state, reload] = useInstance(instanceId)
  const back = (
    <p>
      <a href={hrefFor('instances')}>← All instances</a>
    </p>
  )
  if (state.status === 'loading') return <p className="loading">Loading the instance…</p>
  if (state.status === 'failed') {
    return (
      <section aria-labelledby="instance-title">
        {back}
        <ScreenHeader id="instance-title" title="Instance" />
        <ErrorNotice error={state.error} context="Could not load this instance" />
      </section>
    )
  }
  const instance = state.data
  const account = instance.account
  // Kept while an unlinked instance's socket (re)starts: a pairing code asked for now stays on screen.
  const linking = !instance.linked
  return (
    <section aria-labelledby="instance-title">
      {back}
      <ScreenHeader
        id="instance-title"
        title={instanceLabel(instance)}
        leading={<AccountAvatar account={account} />}
      >
        <StateBadge state={instance.state} cause={instance.cause} />
      </ScreenHeader>
      <p className="next-step" role="status">
        {nextStep(instance.state, instance.cause)}
      </p>
      <InstanceActions
        instance={instance}
        inDetail
        onChanged={(replacedBy, deleted) => {
          if (deleted) window.location.hash = hrefFor('instances')
          else if (replacedBy) window.location.hash = hrefFor('instances', replacedBy)
          else void reload()
        }}
      />
      {linking ? <LinkPanel instance={instance} startAtOnce={startLinking} /> : null}
      <dl className="facts">
        <dt>Instance id</dt>
        <dd>
          <code>{instance.instance_id}</code>
        </dd>
        <dt>Account number</dt>
        <dd>{account ? `+${account.number}` : 'None linked'}</dd>
        <dt>Account name</dt>
        <dd>{account?.name || '—'}</dd>
        <dt>In this state since</dt>
        <dd>{time(instance.since)}</dd>
        {instance.next_retry_at ? (
          <>
            <dt>Next automatic reconnect</dt>
            <dd>{time(instance.next_retry_at)}</dd>
          </>
        ) : null}
        <dt>Last connection error</dt>
        <dd>
          {instance.last_error ? (
            <>
              {instance.last_error.message} <code>{instance.last_error.cause}</code>
              {instance.last_error.code === null ? null : (
                <>
                  {' '}
                  (code <code>{instance.last_error.code}</code>)
                </>
              )}{' '}
              at {time(instance.last_error.at)}
            </>
          ) : (
            'None'
          )}
        </dd>
        <dt>Created</dt>
        <dd>{time(instance.created_at)}</dd>
      </dl>
      <div className="chats-panel">
        <InstanceSettingsForm key={instance.instance_id} instance={instance} onSaved={() => void reload()} />
        <InstanceAccessForm key={`access-${instance.instance_id}`} instanceId={instance.instance_id} />
      </div>
      {instance.linked ? (
        <div className="chats-panel">
          <GroupsPanel instanceId={instance.instance_id} connected={instance.state === 'connected'} />
          {instance.state === 'connected' ? (
            <ProfileForm instanceId={instance.instance_id} name={account?.name ?? null} />
          ) : null}
        </div>
      ) : null}
      {instance.linked ? (
        <ChannelsPanel instanceId={instance.instance_id} connected={instance.state === 'connected'} />
      ) : null}
      {instance.linked ? <ChatsPanel instanceId={instance.instance_id} /> : null}
      {instance.linked ? (
        <StatusPanel instanceId={instance.instance_id} connected={instance.state === 'connected'} />
      ) : null}
      {instance.state === 'connected' ? <ChatTools instanceId={instance.instance_id} /> : null}
    </section>
  )
}
