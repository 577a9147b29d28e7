import { createContext, useContext } from 'react'
import type { ServiceSettingsView } from '../api/types'

/** The server's fixed settings (limits, network); null until loaded or when they cannot be read. */
export const ServiceContext = createContext<ServiceSettingsView | null>(null)

export function useServiceSettings(): ServiceSettingsView | null {
  return useContext(ServiceContext)
}

/** Whether the sandbox's control API answers, so the window offers sandbox phones and contacts. */
export function useSandbox(): boolean {
  return useContext(ServiceContext)?.sandbox_control ?? false
}
