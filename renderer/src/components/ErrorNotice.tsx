import { describeError } from '../api/api-error'

/** An error in words, announced to screen readers as it appears. */
export function ErrorNotice({ error, context }: { error: unknown; context?: string }) {
  return (
    <p className="notice notice-error" role="alert">
      {context ? <strong>{context}: </strong> : null}
      {describeError(error)}
    </p>
  )
}
