import { useCallback, useEffect, useRef, useState } from 'react'
import type { InstanceAnswer, InstanceList, InstanceSummary } from '../../api/types'
import { changesInstance } from '../../api/event-catalogue'
import { useApi } from '../../app/api-context'
import { useLiveEvents } from '../../app/feed-context'
import type { OperationState } from '../../app/use-operation'

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

/** The instances with their live state: reloaded whenever a state change comes on the stream. */
export function useInstances(): [OperationState<InstanceSummary[]>, () => Promise<void>] {
  const api = useApi()
  const [state, setState] = useState<OperationState<InstanceSummary[]>>({ status: 'loading' })
  const reload = useCallback(async () => {
    try {
      setState({ status: 'ready', data: (await api.call<InstanceList>('instances')).instances })
    } catch (error) {
      setState({ status: 'failed', error })
    }
  }, [api])
  useEffect(() => void reload(), [reload])
  useReloadOnChange(reload)
  return [state, reload]
}

/** One instance with its live state. */
export function useInstance(instanceId: string): [OperationState<InstanceSummary>, () => Promise<void>] {
  const api = useApi()
  const [state, setState] = useState<OperationState<InstanceSummary>>({ status: 'loading' })
  const reload = useCallback(async () => {
    try {
      const answer = await api.call<InstanceAnswer>('instance', { instance_id: instanceId })
      setState({ status: 'ready', data: answer.instance })
    } catch (error) {
      setState({ status: 'failed', error })
    }
  }, [api, instanceId])
  useEffect(() => void reload(), [reload])
  useReloadOnChange(reload, instanceId)
  return [state, reload]
}
