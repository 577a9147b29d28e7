import type { KindSummaryView } from '../../../../electron/core/shared-types'
import { SUMMARY_RULES } from '../../kinds/kind-forms'

type Data = Record<string, unknown>

function record(value: unknown): Data | undefined {
  return value && typeof value === 'object' && !Array.isArray(value) ? (value as Data) : undefined
}

function text(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined
}

/** How a kind declares its summary, applied to a message's data; undefined when it does not apply. */
function bySummaryRule(rule: KindSummaryView, data: Data): string | undefined {
  switch (rule.shows) {
    case 'note': {
      const media = record(data.media)
      const seconds = typeof media?.seconds === 'number' ? ` ${media.seconds} s` : ''
      return media?.[rule.flag] ? `${rule.label}${seconds}` : undefined
    }
    case 'place': {
      const place = record(data[rule.field])
      if (!place) return undefined
      const name = text(place.name) ? `${text(place.name)} ` : ''
      return `${rule.label} ${name}(${String(place.latitude)}, ${String(place.longitude)})`
    }
    case 'cards': {
      const cards = Array.isArray(data[rule.field]) ? (data[rule.field] as unknown[]).map(record) : undefined
      if (!cards?.length) return undefined
      const shown = cards.map((card) => [text(card?.name), ...((card?.phones as string[]) ?? [])].join(' '))
      return `${rule.label} ${shown.join('; ')}`
    }
  }
}

/** What a message holds, named as a person would: a voice note rather than PTT audio. */
function content(data: Data): string {
  for (const rule of SUMMARY_RULES) {
    const shown = bySummaryRule(rule, data)
    if (shown !== undefined) return shown
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
