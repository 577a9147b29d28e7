import { useState } from 'react'
import { useApi } from '../../app/api-context'
import { useAction } from '../../app/use-action'
import { ConfirmDialog } from '../../components/ConfirmDialog'
import { CopyButton } from '../../components/CopyButton'
import { ErrorNotice } from '../../components/ErrorNotice'

/** The secret that signs deliveries: hidden until revealed, copyable, and replaceable after a warning. */
export function WebhookSecret({
  instanceId,
  secret,
  onRotated,
}: {
  instanceId: string
  secret: string
  onRotated(secret: string): void
}) {
  const api = useApi()
  const [revealed, setRevealed] = useState(false)
  const [confirming, setConfirming] = useState(false)
  const { error, run } = useAction()
  const rotate = async () => {
    setConfirming(false)
    const rotated = await run(() =>
      api.call<{ secret: string }>('rotate_webhook_secret', { instance_id: instanceId }),
    )
    if (!rotated) return
    onRotated(rotated.secret)
    setRevealed(true)
  }
  return (
    <div className="stack">
      <div className="field">
        <label htmlFor="webhook-secret">Signing secret</label>
        <div className="token-value">
          <input
            id="webhook-secret"
            readOnly
            spellCheck={false}
            type={revealed ? 'text' : 'password'}
            value={secret}
            aria-describedby="webhook-secret-hint"
          />
          <button type="button" onClick={() => setRevealed(!revealed)} aria-pressed={revealed}>
            {revealed ? 'Hide' : 'Reveal'}
          </button>
          <CopyButton text={secret} label="webhook secret" />
          <button type="button" onClick={() => setConfirming(true)}>
            Rotate
          </button>
        </div>
        <p id="webhook-secret-hint" className="hint">
          Each delivery carries an HMAC-SHA256 of its body made with this secret: check it in your receiver.
        </p>
      </div>
      {error ? <ErrorNotice error={error} context="The secret was not replaced" /> : null}
      {confirming ? (
        <ConfirmDialog
          title="Replace the webhook secret?"
          confirmLabel="Replace secret"
          onConfirm={() => void rotate()}
          onCancel={() => setConfirming(false)}
        >
          <p>
            Deliveries from now on, retries included, are signed with a new secret. A receiver that still
            checks the old one rejects them until you update it.
          </p>
        </ConfirmDialog>
      ) : null}
    </div>
  )
}
