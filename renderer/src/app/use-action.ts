import { useCallback, useState } from 'react'

export interface Action {
  /** The label of the step running now (e.g. 'destroy', 'Uploading…'), or null when idle. */
  busy: string | null
  /** What went wrong in the last run, for an ErrorNotice; cleared when the next one starts. */
  error: unknown
  /** Runs `step` (one at a time per component), recording busy and failure; its result, or undefined if it failed. */
  run<T>(step: () => Promise<T>, label?: string): Promise<T | undefined>
  /** Marks a later step of the same run busy under another label. */
  relabel(label: string): void
}

/** The busy and error state of a button or form that calls the API. */
export function useAction(): Action {
  const [busy, setBusy] = useState<string | null>(null)
  const [error, setError] = useState<unknown>(null)
  const run = useCallback(async <T>(step: () => Promise<T>, label = 'busy') => {
    setBusy(label)
    setError(null)
    try {
      return await step()
    } catch (failure) {
      setError(failure)
      return undefined
    } finally {
      setBusy(null)
    }
  }, [])
  return { busy, error, run, relabel: setBusy }
}
