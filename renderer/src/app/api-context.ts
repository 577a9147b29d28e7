import { createContext, useContext } from 'react'
import type { ApiClient } from '../api/client'

export const ApiContext = createContext<ApiClient | null>(null)

/** The API client of the logged-in window. */
export function useApi(): ApiClient {
  const client = useContext(ApiContext)
  if (!client) throw new Error('useApi is used outside the logged-in app')
  return client
}
