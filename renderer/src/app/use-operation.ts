import { useCallback, useEffect, useRef, useState } from 'react'
import type { ApiClient } from '../api/client'
import { useApi } from './api-context'

export type OperationState<T> =
  { status: 'loading' } | { status: 'ready'; data: T } | { status: 'failed'; error: unknown }

/**
 * Reads from the API when the component mounts and whenever `key` changes (say, another instance id);
 * `reload` reads again (after a change). Every screen's reads go through it, so loading and failure look
 * the same everywhere.
 */
export function useOperation<T>(
  read: (api: ApiClient) => Promise<T>,
  key: string,
): [OperationState<T>, () => Promise<void>] {
  const api = useApi()
  const [state, setState] = useState<OperationState<T>>({ status: 'loading' })
  const latest = useRef(read)
  latest.current = read
  const current = useRef(0)
  const reload = useCallback(async () => {
    // A slower answer to an earlier read (another key) never replaces a newer one.
    const ticket = ++current.current
    try {
      const data = await latest.current(api)
      if (ticket === current.current) setState({ status: 'ready', data })
    } catch (error) {
      if (ticket === current.current) setState({ status: 'failed', error })
    }
  }, [api])
  useEffect(() => {
    setState({ status: 'loading' })
    void reload()
  }, [reload, key])
  return [state, reload]
}
