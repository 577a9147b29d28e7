import { ConfirmDialog } from './ConfirmDialog'

/** Confirms deleting an own message for everyone in the chat, naming what they see instead. */
export function DeleteForEveryoneDialog({
  onCancel,
  onConfirm,
}: {
  onCancel: () => void
  onConfirm: () => void
}) {
  return (
    <ConfirmDialog
      title="Delete this message for everyone?"
      confirmLabel="Delete for everyone"
      onCancel={onCancel}
      onConfirm={onConfirm}
    >
      <p>Everyone in the chat sees “This message was deleted” in its place.</p>
    </ConfirmDialog>
  )
}
