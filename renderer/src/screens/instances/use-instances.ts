import { useEffect, useRef } from 'react'
import { changesInstance } from '../../api/event-catalogue'
import type { InstanceAnswer, InstanceList, InstanceSummary } from '../../api/types'
import { useLiveEvents } from '../../app/feed-context'
import { type OperationState, useOperation } from '../../app/use-operation'

/** Calls `reload` after live events that change instances, at most once per burst. */
function useReloadOnChange(reload: () => Promise<void>, instanceId?: string): void {
  const timer = useRef<ReturnType<typeof setTimeout>>(undefined)
  useEffect(() => () => clearTimeout(timer.current), [])
  useLiveEvents((event) => {
    if (!changesInstance(event.event) || (instanceId && event.instance_id !== instanceId)) return
    clearTimeout(timer.current)
    timer.current = setTimeout(() => void reload(), 100)
  })
}

/** The instances with their live state: reloaded after every event that changes an instance. */
export function useInstances(): [OperationState<InstanceSummary[]>, () => Promise<void>] {
  const [state, reload] = useOperation(
    async (api) => (await api.call<InstanceList>('instances')).instances,
    'instances',
  )
  useReloadOnChange(reload)
  return [state, reload]
}

/** One instance with its live state. */
export function useInstance(instanceId: string): [OperationState<InstanceSummary>, () => Promise<void>] {
  const [state, reload] = useOperation(
    async (api) => (await api.call<InstanceAnswer>('instance', { instance_id: instanceId })).instance,
    instanceId,
  )
  useReloadOnChange(reload, instanceId)
  return [state, reload]
}
