import {
  type ChosenFile,
  emptyValues,
  formOf,
  formRequest,
  replyRequest,
  SANDBOX_FORMS,
} from '../../kinds/kind-forms'

/** What a sandbox contact can send from the window: each kind's form maps onto the control API's message body. */
export const CONTACT_KINDS = SANDBOX_FORMS

export interface ContactDraft {
  to: string
  kind: string
  replyTo: string
  /** Numbers, separated by commas or spaces. */
  mentions: string
  /** The chosen file, as base64, with its type and name. */
  file: ChosenFile | null
  /** The kinds' own fields by their form names (`text`, `latitude`, `contacts`, …). */
  [field: string]: string | boolean | ChosenFile | null
}

export const EMPTY_CONTACT_DRAFT: ContactDraft = {
  ...emptyValues(SANDBOX_FORMS),
  to: '',
  kind: 'text',
  replyTo: '',
  mentions: '',
  file: null,
}

/** The control API body (`POST /sandbox/accounts/{phone}/messages`) for a draft. */
export function contactSendBody(draft: ContactDraft): Record<string, unknown> {
  return { to: draft.to, ...formRequest(formOf(SANDBOX_FORMS, draft.kind), draft), ...replyRequest(draft) }
}
