import { type DragEvent, useId, useState } from 'react'
import './FileDropZone.css'

/** Chooses a local file by the file dialog (keyboard) or by dropping it here. */
export function FileDropZone({ file, onFile }: { file: File | null; onFile(file: File | null): void }) {
  const id = useId()
  const [over, setOver] = useState(false)
  const drop = (event: DragEvent) => {
    event.preventDefault()
    setOver(false)
    const dropped = event.dataTransfer.files[0]
    if (dropped) onFile(dropped)
  }
  return (
    <div
      className={`drop-zone${over ? ' drop-zone-over' : ''}`}
      onDragOver={(event) => {
        event.preventDefault()
        setOver(true)
      }}
      onDragLeave={() => setOver(false)}
      onDrop={drop}
    >
      <label htmlFor={id}>File to send</label>
      <input id={id} type="file" onChange={(event) => onFile(event.target.files?.[0] ?? null)} />
      <p className="hint">
        {file
          ? `${file.name}, ${formatSize(file.size)}`
          : 'Drop a file here or choose one. It is uploaded to this Linkdesk only, then sent.'}
      </p>
    </div>
  )
}

export function formatSize(bytes: number): string {
  if (bytes >= 1024 * 1024) return `${(bytes / (1024 * 1024)).toFixed(1)} MiB`
  if (bytes >= 1024) return `${(bytes / 1024).toFixed(1)} KiB`
  return `${bytes} bytes`
}
