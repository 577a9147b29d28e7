/** A message's time as a chat list shows it: the hour today, the day otherwise. */
export function chatTime(timestamp: string, now = new Date()): string {
  const at = new Date(Number(timestamp) * 1000)
  if (Number.isNaN(at.getTime())) return ''
  const sameDay = at.toDateString() === now.toDateString()
  return sameDay
    ? at.toLocaleTimeString(undefined, { hour: '2-digit', minute: '2-digit' })
    : at.toLocaleDateString(undefined, { day: 'numeric', month: 'short' })
}

/** A message's time in a thread: the hour, and the day when it is not today. */
export function messageTime(timestamp: string, now = new Date()): string {
  const at = new Date(Number(timestamp) * 1000)
  if (Number.isNaN(at.getTime())) return ''
  const hour = at.toLocaleTimeString(undefined, { hour: '2-digit', minute: '2-digit' })
  return at.toDateString() === now.toDateString()
    ? hour
    : `${at.toLocaleDateString(undefined, { day: 'numeric', month: 'short' })} ${hour}`
}
