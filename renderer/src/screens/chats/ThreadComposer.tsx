import { type DragEvent, type KeyboardEvent, useEffect, useId, useRef, useState } from 'react'
import type { MessageView } from '../../api/types'
import { useApi } from '../../app/api-context'
import { VoiceRecorder } from '../composer/VoiceRecorder'
import './ThreadComposer.css'

/** What the box hands the thread to send: a text, or a file (with a caption) or a voice note. */
export type Outgoing =
  | { kind: 'text'; text: string; replyTo: MessageView | null }
  | { kind: 'file'; file: File; caption: string; voice: boolean; replyTo: MessageView | null }

/** How often typing is shown again while the person keeps typing, and how long a pause ends it. */
const TYPING_EVERY_MS = 4_000
const PAUSE_AFTER_MS = 3_000

/** Shows the contact "typing…" while the person types, and "paused" once they stop. */
function useTypingSignal(instanceId: string, chat: string) {
  const api = useApi()
  const last = useRef(0)
  const pause = useRef<ReturnType<typeof setTimeout> | undefined>(undefined)
  const show = (presence: 'typing' | 'paused') =>
    api.call('send_presence', { instance_id: instanceId, number: chat, presence }).catch(() => undefined)
  useEffect(() => () => clearTimeout(pause.current), [])
  return {
    typed() {
      const now = Date.now()
      if (now - last.current > TYPING_EVERY_MS) {
        last.current = now
        void show('typing')
      }
      clearTimeout(pause.current)
      pause.current = setTimeout(() => {
        last.current = 0
        void show('paused')
      }, PAUSE_AFTER_MS)
    },
    /** A sent message ends the typing by itself. */
    sent() {
      clearTimeout(pause.current)
      last.current = 0
    },
  }
}

/**
 * The thread's message box: Enter sends, Shift+Enter starts a new line; a file by the picker or dropped on
 * the thread; a voice note from the microphone; replying to the chosen message.
 */
export function ThreadComposer({
  instanceId,
  chat,
  replyTo,
  onCancelReply,
  dropped,
  onSend,
}: {
  instanceId: string
  chat: string
  replyTo: MessageView | null
  onCancelReply(): void
  /** A file dropped on the thread, to attach. */
  dropped: File | null
  onSend(outgoing: Outgoing): void
}) {
  const boxId = useId()
  const fileId = useId()
  const [text, setText] = useState('')
  const [file, setFile] = useState<{ file: File; voice: boolean } | null>(null)
  const typing = useTypingSignal(instanceId, chat)
  const box = useRef<HTMLTextAreaElement>(null)
  useEffect(() => {
    if (dropped) setFile({ file: dropped, voice: false })
  }, [dropped])
  useEffect(() => {
    if (replyTo) box.current?.focus()
  }, [replyTo])

  const send = () => {
    if (file) onSend({ kind: 'file', ...file, caption: text.trim(), replyTo })
    else if (text.trim() !== '') onSend({ kind: 'text', text, replyTo })
    else return
    typing.sent()
    setText('')
    setFile(null)
  }
  const onKeyDown = (event: KeyboardEvent<HTMLTextAreaElement>) => {
    if (event.key !== 'Enter' || event.shiftKey || event.nativeEvent.isComposing) return
    event.preventDefault()
    send()
  }
  const drop = (event: DragEvent) => {
    event.preventDefault()
    const first = event.dataTransfer.files[0]
    if (first) setFile({ file: first, voice: false })
  }

  return (
    <form
      className="thread-composer"
      aria-label="Answer"
      onSubmit={(event) => {
        event.preventDefault()
        send()
      }}
      onDragOver={(event) => event.preventDefault()}
      onDrop={drop}
    >
      {replyTo ? (
        <p className="thread-replying">
          Replying to {replyTo.from_me ? 'your message' : 'their message'}:{' '}
          <q>{replyTo.text ?? replyTo.caption ?? `[${replyTo.type}]`}</q>{' '}
          <button type="button" onClick={onCancelReply}>
            Cancel reply
          </button>
        </p>
      ) : null}
      {file ? (
        <p className="thread-attached">
          {file.voice ? 'Voice note' : 'Attached'}: {file.file.name}{' '}
          <button type="button" onClick={() => setFile(null)}>
            Remove
          </button>
        </p>
      ) : null}
      <div className="thread-composer-row">
        <label htmlFor={boxId} className="visually-hidden">
          Message
        </label>
        <textarea
          id={boxId}
          ref={box}
          rows={2}
          value={text}
          placeholder={
            file ? 'A caption (optional)' : 'Write a message (Enter sends, Shift+Enter a new line)'
          }
          onChange={(event) => {
            setText(event.target.value)
            typing.typed()
          }}
          onKeyDown={onKeyDown}
        />
        <button type="submit" className="primary">
          Send
        </button>
      </div>
      <div className="thread-composer-tools">
        <input
          id={fileId}
          type="file"
          className="visually-hidden"
          onChange={(event) => {
            const picked = event.target.files?.[0]
            if (picked) setFile({ file: picked, voice: false })
            event.target.value = ''
          }}
        />
        <label htmlFor={fileId} className="file-picker">
          Attach a file
        </label>
        <VoiceRecorder onRecorded={(recorded) => setFile({ file: recorded, voice: true })} />
      </div>
    </form>
  )
}
