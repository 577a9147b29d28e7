import type {
  KindFormFieldView,
  KindFormView,
  KindsView,
  KindSummaryView,
} from '../../../electron/core/shared-types'

declare const __LINKDESK_KINDS__: KindsView

/** The message kinds' forms and summaries, as the build put them in (renderer/build-defines.ts). */
export const COMPOSER_FORMS: readonly KindFormView[] = __LINKDESK_KINDS__.composer
export const SANDBOX_FORMS: readonly KindFormView[] = __LINKDESK_KINDS__.sandbox
export const SUMMARY_RULES: readonly KindSummaryView[] = __LINKDESK_KINDS__.summaries

/** A chosen file as the sandbox's control API takes it: base64, with its type and name. */
export interface ChosenFile {
  base64: string
  mimetype: string
  name: string
}

/** A form's values by field name: texts, ticks, and (in the sandbox panel) a chosen file. */
export type FormValues = Readonly<Record<string, string | boolean | ChosenFile | null | undefined>>

/** The form of a kind among a form's kinds (the first when unknown). */
export function formOf(forms: readonly KindFormView[], kind: string): KindFormView | undefined {
  return forms.find((form) => form.kind === kind) ?? forms[0]
}

/** Every field of these forms empty: no text, no tick, no file. */
export function emptyValues(forms: readonly KindFormView[]): Record<string, string | boolean | null> {
  const values: Record<string, string | boolean | null> = {}
  for (const field of forms.flatMap((form) => form.fields)) {
    values[field.name] = field.input === 'checkbox' ? false : field.input === 'file' ? null : ''
  }
  return values
}

function filled(value: FormValues[string]): boolean {
  return typeof value === 'string' ? value !== '' : Boolean(value)
}

/** `Name: number` lines as cards; a line without a colon and digits is refused naming it. */
function cards(lines: string): Array<{ name: string; phone: string }> {
  return nonBlankLines(lines).map((line) => {
    const colon = line.lastIndexOf(':')
    const name = colon > 0 ? line.slice(0, colon).trim() : ''
    const phone = colon > 0 ? line.slice(colon + 1).replace(/[^\d]/g, '') : ''
    if (!name || !phone) throw new Error(`“${line}” is not a card: write a name, a colon and the number.`)
    return { name, phone }
  })
}

function nonBlankLines(value: string): string[] {
  return value
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '')
}

/** Puts a value at a parameter or a dotted path (`location.name`) of a request. */
function put(request: Record<string, unknown>, path: string, value: unknown): void {
  const [head, ...rest] = path.split('.')
  if (!head) return
  if (rest.length === 0) {
    request[head] = value
    return
  }
  const inner = (request[head] ?? {}) as Record<string, unknown>
  request[head] = inner
  put(inner, rest.join('.'), value)
}

/** What one field adds to the request. */
function fieldValue(field: KindFormFieldView, value: FormValues[string], request: Record<string, unknown>) {
  switch (field.value) {
    case 'number':
      return put(request, field.param, Number(value))
    case 'lines':
      return put(request, field.param, nonBlankLines(String(value ?? '')))
    case 'cards':
      return put(request, field.param, cards(String(value ?? '')))
    case 'flag':
      return put(request, field.param, true)
    case 'file': {
      if (typeof value === 'string') return put(request, field.param, value)
      if (typeof value !== 'object' || !value) throw new Error('Choose a file to send.')
      put(request, field.param, value.base64)
      put(request, 'mimetype', value.mimetype || undefined)
      if (field.documentName) put(request, field.documentName, value.name)
      return
    }
    default:
      return put(request, field.param, value)
  }
}

/**
 * What a kind's form adds to its request, as a script would send it: each required field always, the others
 * only when filled in (a field sent `with` another only when both are), and the kind's constant values.
 */
export function formRequest(form: KindFormView | undefined, values: FormValues): Record<string, unknown> {
  const request: Record<string, unknown> = {}
  for (const field of form?.fields ?? []) {
    const value = values[field.name]
    if (!field.required && !filled(value)) continue
    if (field.with !== undefined && !filled(values[field.with])) continue
    fieldValue(field, value, request)
    // A composer file's document name is its own draft value, sent when given.
    const documentName = field.documentName ? values[field.documentName] : undefined
    if (
      field.value === 'file' &&
      typeof value === 'string' &&
      typeof documentName === 'string' &&
      documentName
    ) {
      put(request, field.documentName as string, documentName)
    }
  }
  for (const [name, value] of Object.entries(form?.constants ?? {})) put(request, name, value)
  return request
}

/** What any kind may add: the message it replies to and the people it mentions (numbers). */
export function replyRequest(values: { replyTo: string; mentions: string }): Record<string, unknown> {
  const request: Record<string, unknown> = {}
  if (values.replyTo.trim()) request.reply_to = values.replyTo.trim()
  const mentions = values.mentions
    .split(/[\s,]+/)
    .map((word) => word.trim())
    .filter((word) => word !== '')
  if (mentions.length) request.mentions = mentions
  return request
}

/** What any kind may add, in either form: the message it replies to, and the people it mentions. */
export function replyFields(hints: { replyTo?: string; mentions?: string } = {}): KindFormFieldView[] {
  return [
    {
      name: 'replyTo',
      param: 'reply_to',
      value: 'text',
      label: 'Reply to (optional)',
      input: 'text',
      spellCheck: false,
      hint: hints.replyTo,
    },
    {
      name: 'mentions',
      param: 'mentions',
      value: 'text',
      label: 'Mention (optional)',
      input: 'text',
      spellCheck: false,
      placeholder: hints.mentions,
    },
  ]
}
