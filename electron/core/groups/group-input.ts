import { AppError } from '../errors'
import { parseRecipient } from '../contract/recipient'

export const SUBJECT_CHARS = 100
export const DESCRIPTION_CHARS = 2048
export const PARTICIPANTS_PER_CHANGE = 50

const GROUP_USER = /^\d{5,30}(-\d{5,15})?$/
const INVITE_CODE = /^[A-Za-z0-9_-]{10,40}$/
const INVITE_LINK = /^(?:https?:\/\/)?chat\.whatsapp\.com\/(?:invite\/)?([A-Za-z0-9_-]+)\/?$/i

/** Where invite codes open as links. */
export const INVITE_LINK_BASE = 'https://chat.whatsapp.com/'

function invalid(parameter: string, message: string): AppError {
  return new AppError('invalid_parameter', message, { details: { parameter } })
}

/** Reads a group id, `<digits>@g.us` (a phone number or another chat id is not one). */
export function parseGroupId(input: string): string {
  const value = input.trim()
  const at = value.lastIndexOf('@')
  const user = value.slice(0, at)
  if (at < 0 || value.slice(at + 1).toLowerCase() !== 'g.us' || !GROUP_USER.test(user)) {
    throw invalid(
      'group_id',
      `group_id ${JSON.stringify(value)} is not a group id: it is <digits>@g.us, such as 120363041234567890@g.us.`,
    )
  }
  return `${user}@g.us`
}

/** Reads participants: phone numbers (or phone / LID chat ids), each once; a group is refused. */
export function parseParticipants(inputs: readonly string[]): string[] {
  if (inputs.length === 0)
    throw new AppError('missing_parameter', 'Give at least one participant.', {
      details: { parameter: 'participants' },
    })
  const jids = inputs.map((input) => {
    let recipient
    try {
      recipient = parseRecipient(input)
    } catch {
      throw invalid(
        'participants',
        `participant ${JSON.stringify(input)} must be a phone number with country code.`,
      )
    }
    if (recipient.kind === 'group')
      throw invalid('participants', `participant ${input} is a group, not a person.`)
    return recipient.jid
  })
  return [...new Set(jids)]
}

export function checkSubject(subject: string): string {
  const value = subject.trim()
  if (value.length === 0) throw invalid('subject', 'subject must not be empty.')
  if ([...value].length > SUBJECT_CHARS) {
    throw invalid(
      'subject',
      `subject must be at most ${SUBJECT_CHARS} characters (it has ${[...value].length}).`,
    )
  }
  return value
}

/** An empty description removes it (null). */
export function checkDescription(description: string): string | null {
  const length = [...description].length
  if (length > DESCRIPTION_CHARS) {
    throw invalid(
      'description',
      `description must be at most ${DESCRIPTION_CHARS} characters (it has ${length}).`,
    )
  }
  return description.trim() === '' ? null : description
}

/** Reads an invite code, or an invite link (`https://chat.whatsapp.com/<code>`). */
export function parseInviteCode(input: string): string {
  const value = input.trim()
  const code = INVITE_LINK.exec(value)?.[1] ?? value
  if (!INVITE_CODE.test(code)) {
    throw invalid(
      'code',
      'code must be an invite code or link (such as https://chat.whatsapp.com/AbCdEfGhIjKlMnOpQrStUv).',
    )
  }
  return code
}
