import { useEffect, useRef, useState } from 'react'
import { ErrorNotice } from '../../components/ErrorNotice'

/**
 * Records a voice note with the microphone (the browser's own Opus in WebM; Linkdesk converts it to the
 * Ogg/Opus a voice note must be). The recording becomes the file to send.
 */
export function VoiceRecorder({ onRecorded }: { onRecorded(file: File): void }) {
  const recorder = useRef<MediaRecorder | null>(null)
  const [recording, setRecording] = useState(false)
  const [error, setError] = useState<unknown>(null)
  useEffect(() => () => recorder.current?.stream.getTracks().forEach((track) => track.stop()), [])

  if (typeof MediaRecorder === 'undefined') return null

  const start = async () => {
    setError(null)
    try {
      const stream = await navigator.mediaDevices.getUserMedia({ audio: true })
      const chunks: Blob[] = []
      const next = new MediaRecorder(stream)
      next.ondataavailable = (event) => chunks.push(event.data)
      next.onstop = () => {
        stream.getTracks().forEach((track) => track.stop())
        const type = next.mimeType || 'audio/webm'
        onRecorded(new File(chunks, `voice-note.${type.includes('ogg') ? 'ogg' : 'webm'}`, { type }))
      }
      next.start()
      recorder.current = next
      setRecording(true)
    } catch (failure) {
      setError(failure)
    }
  }
  const stop = () => {
    recorder.current?.stop()
    recorder.current = null
    setRecording(false)
  }
  return (
    <div className="field">
      <div className="actions">
        {recording ? (
          <button type="button" onClick={stop}>
            Stop recording
          </button>
        ) : (
          <button type="button" onClick={() => void start()}>
            Record with the microphone
          </button>
        )}
      </div>
      {recording ? <p role="status">Recording…</p> : null}
      {error ? <ErrorNotice error={error} context="No recording" /> : null}
    </div>
  )
}
