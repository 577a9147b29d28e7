import { useState } from 'react'

/** Copies `text` to the clipboard and says so; `label` names what is copied for screen readers. */
export function CopyButton({ text, label }: { text: string; label: string }) {
  const [copied, setCopied] = useState<'idle' | 'copied' | 'failed'>('idle')
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(text)
      setCopied('copied')
    } catch {
      setCopied('failed')
    }
  }
  return (
    <>
      <button type="button" onClick={() => void copy()} aria-label={`Copy ${label}`}>
        {copied === 'copied' ? 'Copied' : 'Copy'}
      </button>
      <span className="visually-hidden" aria-live="polite">
        {copied === 'copied'
          ? `${label} copied`
          : copied === 'failed'
            ? 'Copy failed: select the text and copy it'
            : ''}
      </span>
    </>
  )
}
