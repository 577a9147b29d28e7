import type { Session } from '../auth/session'
import { ChatsScreen } from '../screens/chats/ChatsScreen'
import { ComposerScreen } from '../screens/composer/ComposerScreen'
import { EventsScreen } from '../screens/events/EventsScreen'
import { InstanceDetail } from '../screens/instances/InstanceDetail'
import { InstancesScreen } from '../screens/InstancesScreen'
import { SandboxScreen } from '../screens/sandbox/SandboxScreen'
import { SettingsScreen } from '../screens/SettingsScreen'
import { TokensScreen } from '../screens/TokensScreen'
import { WebhooksScreen } from '../screens/webhooks/WebhooksScreen'
import type { RouteId } from './routes'

interface ScreenForProps {
  route: RouteId
  subpath: string[]
  query: URLSearchParams
  session: Session
}

/** The screen a route shows. */
export function ScreenFor({ route, subpath, query, session }: ScreenForProps) {
  switch (route) {
    case 'instances': {
      const [instanceId, action] = subpath
      return instanceId ? (
        <InstanceDetail key={instanceId} instanceId={instanceId} startLinking={action === 'link'} />
      ) : (
        <InstancesScreen />
      )
    }
    case 'chats':
      return <ChatsScreen instanceId={subpath[0] ?? ''} chat={query.get('chat')} />
    case 'composer':
      // A new query (a reply begun from the event log) begins a new draft.
      return <ComposerScreen key={query.toString()} apiBase={session.apiBase} query={query} />
    case 'events':
      return <EventsScreen />
    case 'webhooks':
      return <WebhooksScreen />
    case 'sandbox':
      return <SandboxScreen />
    case 'tokens':
      return <TokensScreen apiBase={session.apiBase} />
    case 'settings':
      return <SettingsScreen session={session} />
    default: {
      const unknown: never = route
      throw new Error(`No screen for route ${String(unknown)}`)
    }
  }
}
