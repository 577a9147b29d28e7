import type { Logger } from '../logger'
import type { InstanceObserver } from './instance-manager'
import type { InstanceRegistry } from './instance-registry'
import { behavioursOf } from './instance-settings'

/**
 * The always_online behaviour, as an observer of the instances: an instance with it shows the account online
 * each time it connects, and at once when the setting is turned on (offline when turned off) while connected.
 */
export function keepAlwaysOnline(deps: {
  registry: InstanceRegistry
  /** Shows the account online or offline (the messages part's chat signals). */
  signals: {
    showPresence(instanceId: string, presence: 'online' | 'offline', chat: undefined): Promise<void>
  }
  logger: Logger
}): InstanceObserver {
  const { registry, signals } = deps
  const log = deps.logger.child({ module: 'always-online' })
  const connected = new Set<string>()
  const applied = new Map<string, boolean>()
  const show = (instanceId: string, online: boolean) => {
    applied.set(instanceId, online)
    signals
      .showPresence(instanceId, online ? 'online' : 'offline', undefined)
      .catch((error: unknown) => log.warn({ err: error, instanceId }, 'showing the account online failed'))
  }
  return {
    status: (instanceId, status) => {
      const now = status.state === 'connected'
      const was = connected.has(instanceId)
      if (now) connected.add(instanceId)
      else connected.delete(instanceId)
      if (now && !was && behavioursOf(registry.find(instanceId)).always_online) show(instanceId, true)
    },
    settingsChanged: (instanceId, record) => {
      const wanted = behavioursOf(record).always_online
      if ((applied.get(instanceId) ?? false) !== wanted && connected.has(instanceId)) show(instanceId, wanted)
    },
  }
}
