import type { Core, InstanceStatus } from '../core'
import { type InstanceNotice, type TrayInstance, instanceLabel, noticeFor } from './instance-watch'

export type { InstanceNotice } from './instance-watch'

export interface InstanceWatchers {
  /** Every instance with its state, after each change (for the tray menu). */
  onList(instances: TrayInstance[]): void
  /** A change the operator should hear about even with the window closed. */
  onNotice(instanceId: string, notice: InstanceNotice): void
}

/**
 * Follows the core's instances in-process (the main process holds the core): the tray's list after every
 * status change, and a notice when a connected instance disconnects or any instance is logged out.
 */
export function watchInstances(core: Core, watchers: InstanceWatchers): () => void {
  const lastState = new Map<string, InstanceStatus['state']>()
  const list = (): TrayInstance[] =>
    core.registry.all().map((record) => {
      const status = core.instances.status(record.id)
      lastState.set(record.id, lastState.get(record.id) ?? status.state)
      return {
        id: record.id,
        label: instanceLabel(record.id, status),
        state: status.state,
        linked: status.linked,
      }
    })
  let pending: NodeJS.Timeout | undefined
  const refresh = () => {
    clearTimeout(pending)
    // Status changes come in bursts (connecting → connected); the menu is rebuilt once per burst.
    pending = setTimeout(() => watchers.onList(list()), 200)
  }
  const stopStatus = core.instances.onStatus((instanceId, status) => {
    const notice = noticeFor(instanceId, lastState.get(instanceId), status)
    lastState.set(instanceId, status.state)
    if (notice) watchers.onNotice(instanceId, notice)
    refresh()
  })
  const stopDestroyed = core.instances.onDestroyed((oldId) => {
    lastState.delete(oldId)
    refresh()
  })
  watchers.onList(list())
  return () => {
    clearTimeout(pending)
    stopStatus()
    stopDestroyed()
  }
}
