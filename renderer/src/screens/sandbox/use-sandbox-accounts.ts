import { useCallback, useEffect, useState } from 'react'
import type { SandboxAccountView, SandboxAccounts } from '../../api/types'
import { useApi } from '../../app/api-context'
import type { OperationState } from '../../app/use-operation'

/** The sandbox's simulated accounts: contacts, and the phones that linked instances. */
export function useSandboxAccounts(): [OperationState<SandboxAccountView[]>, () => Promise<void>] {
  const api = useApi()
  const [state, setState] = useState<OperationState<SandboxAccountView[]>>({ status: 'loading' })
  const reload = useCallback(async () => {
    try {
      setState({
        status: 'ready',
        data: (await api.request<SandboxAccounts>('GET', 'sandbox/accounts')).accounts,
      })
    } catch (error) {
      setState({ status: 'failed', error })
    }
  }, [api])
  useEffect(() => void reload(), [reload])
  return [state, reload]
}
