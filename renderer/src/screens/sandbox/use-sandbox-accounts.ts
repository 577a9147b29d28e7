import type { SandboxAccountView, SandboxAccounts } from '../../api/types'
import { type OperationState, useOperation } from '../../app/use-operation'

/** The sandbox's simulated accounts: contacts, and the phones that linked instances. */
export function useSandboxAccounts(): [OperationState<SandboxAccountView[]>, () => Promise<void>] {
  return useOperation(
    async (api) => (await api.request<SandboxAccounts>('GET', 'sandbox/accounts')).accounts,
    'sandbox/accounts',
  )
}
