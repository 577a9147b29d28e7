import { FileDropZone } from './FileDropZone'
import './MediaFields.css'

export interface MediaChoice {
  source: 'url' | 'file'
  url: string
  file: File | null
  /** Sends the file as a document with this name; empty sends images, video and audio as such. */
  filename: string
}

/** Images, video and audio are sent as such; anything else goes as a document under its own name. */
function defaultDocumentName(file: File): string {
  return /^(image|video|audio)\//.test(file.type) ? '' : file.name
}

/** Where the file comes from (a URL Linkdesk fetches, or a local file) and its document name. */
export function MediaFields({
  value,
  onChange,
  documentName = true,
}: {
  value: MediaChoice
  onChange(value: MediaChoice): void
  /** Offers the document name (only a `media` send takes one). */
  documentName?: boolean
}) {
  return (
    <>
      <fieldset className="segmented">
        <legend>File from</legend>
        <label>
          <input
            type="radio"
            name="composer-source"
            checked={value.source === 'url'}
            onChange={() => onChange({ ...value, source: 'url' })}
          />
          A URL
        </label>
        <label>
          <input
            type="radio"
            name="composer-source"
            checked={value.source === 'file'}
            onChange={() => onChange({ ...value, source: 'file' })}
          />
          This computer
        </label>
      </fieldset>
      {value.source === 'url' ? (
        <div className="field">
          <label htmlFor="composer-media-url">Media URL</label>
          <input
            id="composer-media-url"
            type="url"
            required
            value={value.url}
            placeholder="https://example.com/photo.jpg"
            onChange={(event) => onChange({ ...value, url: event.target.value.trim() })}
          />
        </div>
      ) : (
        <FileDropZone
          file={value.file}
          onFile={(file) =>
            onChange({ ...value, file, filename: file && documentName ? defaultDocumentName(file) : '' })
          }
        />
      )}
      {documentName ? (
        <div className="field">
          <label htmlFor="composer-filename">Document file name (optional)</label>
          <input
            id="composer-filename"
            value={value.filename}
            placeholder="e.g. invoice.pdf"
            aria-describedby="composer-filename-hint"
            onChange={(event) => onChange({ ...value, filename: event.target.value })}
          />
          <p id="composer-filename-hint" className="hint">
            With a name, the file is sent as a document under that name; without, images, videos and audio are
            sent as such.
          </p>
        </div>
      ) : null}
    </>
  )
}
