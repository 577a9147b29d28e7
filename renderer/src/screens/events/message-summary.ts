type Data = Record<string, unknown>

function record(value: unknown): Data | undefined {
  return value && typeof value === 'object' && !Array.isArray(value) ? (value as Data) : undefined
}

function text(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined
}

/** What a message holds, named as a person would: a voice note rather than PTT audio. */
function content(data: Data): string {
  const media = record(data.media)
  const location = record(data.location)
  const contacts = Array.isArray(data.contacts) ? data.contacts.map(record) : undefined
  const seconds = typeof media?.seconds === 'number' ? ` ${media.seconds} s` : ''
  if (media?.voice_note) return `voice note${seconds}`
  if (media?.video_note) return `video note${seconds}`
  if (location) {
    const name = text(location.name) ? `${text(location.name)} ` : ''
    return `location ${name}(${String(location.latitude)}, ${String(location.longitude)})`
  }
  if (contacts?.length) {
    const cards = contacts.map((card) => [text(card?.name), ...((card?.phones as string[]) ?? [])].join(' '))
    return `contact ${cards.join('; ')}`
  }
  const type = text(data.type) ?? 'message'
  const shown = text(data.text) ?? text(data.caption)
  if (type === 'text') return shown ?? ''
  const kind = data.view_once ? `view-once ${type}` : type
  return shown ? `[${kind}] ${shown}` : `[${kind}]`
}

/**
 * One line for a message event (message.received, message.sent): its content, marked as a reply and with
 * its mentions; undefined for other events.
 */
export function messageSummary(data: Data): string | undefined {
  if (typeof data.target_id === 'string') return actionSummary(data, data.target_id)
  if (typeof data.type !== 'string' || !('chat' in data)) return undefined
  const reply = record(data.quoted) ? '↩ ' : ''
  const mentions = Array.isArray(data.mentions) && data.mentions.length ? ` (@${data.mentions.length})` : ''
  return `${reply}${content(data)}${mentions}`
}

/** A vote, a reaction, an edit or a delete for everyone, naming the message it acts on. */
function actionSummary(data: Data, target: string): string {
  if (Array.isArray(data.options)) {
    return data.options.length
      ? `voted ${data.options.join(', ')} on poll ${target}`
      : `took back a vote on poll ${target}`
  }
  if (typeof data.emoji === 'string') {
    return data.removed ? `took back a reaction to ${target}` : `reacted ${data.emoji} to ${target}`
  }
  if ('text' in data) return `edited ${target}: ${text(data.text) ?? ''}`
  return `deleted ${target} for everyone`
}
