import { useEffect, useRef, useState } from 'react'
import type { InstanceSummary, QrUpdateData } from '../../../api/types'
import { useApi } from '../../../app/api-context'
import { useAction } from '../../../app/use-action'
import { useFeed, useLiveEvents } from '../../../app/feed-context'
import { useSandbox } from '../../../app/service-context'
import { ErrorNotice } from '../../../components/ErrorNotice'
import { PairingCodeForm } from './PairingCodeForm'
import { QrCode } from './QrCode'
import { SandboxScanForm } from './SandboxScanForm'
import './LinkPanel.css'

interface LinkPanelProps {
  instance: InstanceSummary
  /** Start the QR wait at once (after "Create instance" or "Link an account"). */
  startAtOnce: boolean
}

/**
 * Linking an unlinked instance: the QR code, refreshed from the qr.update events as it rotates, a pairing
 * code instead, and in sandbox mode a simulated phone that scans it.
 */
export function LinkPanel({ instance, startAtOnce }: LinkPanelProps) {
  const api = useApi()
  const feed = useFeed()
  const sandbox = useSandbox()
  const id = instance.instance_id
  const [qr, setQr] = useState<QrUpdateData | undefined>(() => feed.latestQr(id))
  const { busy: starting, error, run } = useAction()
  const started = useRef(false)

  useLiveEvents((event) => {
    if (event.instance_id === id && event.event === 'qr.update') setQr(event.data as unknown as QrUpdateData)
  })

  const start = async () => {
    const answer = await run(() => api.call<{ base64: string }>('generate_qrcode', { instance_id: id }))
    if (!answer) return
    // The stream brings the same code with its text and expiry; show the image meanwhile.
    setQr(
      (known) => known ?? feed.latestQr(id) ?? { qr: answer.base64, qr_text: '', expires_at: 0, count: 1 },
    )
  }

  useEffect(() => {
    if (!startAtOnce || started.current) return
    started.current = true
    if (instance.state === 'idle' || instance.state === 'logged_out') void start()
    // Only on the first render: later state changes come from the stream.
  }, [])

  const waiting = instance.state === 'qr'
  const current =
    waiting && qr && (qr.expires_at === 0 || qr.expires_at >= (instance.qr_expires_at ?? 0)) ? qr : undefined
  return (
    <section className="link-panel" aria-labelledby="link-title">
      <h2 id="link-title">Link an account</h2>
      <div className="link-columns">
        <div className="stack">
          <p>
            On the phone, open WhatsApp → Settings → Linked devices → Link a device, and point the camera at
            this code.
          </p>
          {current ? (
            <QrCode
              qr={
                current.expires_at === 0 ? { ...current, expires_at: instance.qr_expires_at ?? 0 } : current
              }
            />
          ) : waiting || starting !== null ? (
            <p className="loading" role="status">
              Waiting for the QR code…
            </p>
          ) : (
            <div className="actions">
              <button type="button" className="primary" onClick={() => void start()}>
                Show QR code
              </button>
            </div>
          )}
          {error ? <ErrorNotice error={error} context="No QR code" /> : null}
        </div>
        <div className="stack">
          {sandbox ? <SandboxScanForm qrText={current?.qr_text || undefined} /> : null}
          <PairingCodeForm instanceId={id} />
        </div>
      </div>
    </section>
  )
}
