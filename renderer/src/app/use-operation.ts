import { useCallback, useEffect, useState } from 'react'
import { useApi } from './api-context'

export type OperationState<T> =
  { status: 'loading' } | { status: 'ready'; data: T } | { status: 'failed'; error: unknown }

/** Calls a read operation when the screen mounts; `reload` calls it again (after a change). */
export function useOperation<T>(operation: string): [OperationState<T>, () => Promise<void>] {
  const api = useApi()
  const [state, setState] = useState<OperationState<T>>({ status: 'loading' })
  const reload = useCallback(async () => {
    try {
      setState({ status: 'ready', data: await api.call<T>(operation) })
    } catch (error) {
      setState({ status: 'failed', error })
    }
  }, [api, operation])
  useEffect(() => {
    void reload()
  }, [reload])
  return [state, reload]
}
