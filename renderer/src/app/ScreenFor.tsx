import type { Session } from '../auth/session'
import { ComposerScreen } from '../screens/ComposerScreen'
import { EventsScreen } from '../screens/EventsScreen'
import { InstancesScreen } from '../screens/InstancesScreen'
import { SettingsScreen } from '../screens/SettingsScreen'
import { TokensScreen } from '../screens/TokensScreen'
import { WebhooksScreen } from '../screens/WebhooksScreen'
import type { RouteId } from './routes'

/** The screen a route shows. */
export function ScreenFor({ route, session }: { route: RouteId; session: Session }) {
  switch (route) {
    case 'instances':
      return <InstancesScreen />
    case 'composer':
      return <ComposerScreen apiBase={session.apiBase} />
    case 'events':
      return <EventsScreen />
    case 'webhooks':
      return <WebhooksScreen />
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
