import { COMPOSER_FORMS, emptyValues, formOf, formRequest, replyRequest } from '../../kinds/kind-forms'

/** What the composer can send: each a `type` of send_message, as its kind declares it. */
export const COMPOSER_KINDS = COMPOSER_FORMS

export interface ComposerDraft {
  instanceId: string
  number: string
  /** The send_message `type`. */
  kind: string
  replyTo: string
  /** Numbers, separated by commas or spaces. */
  mentions: string
  /** The kinds' own fields by their form names (`message`, `mediaUrl`, …). */
  [field: string]: string | boolean
}

export const EMPTY_DRAFT: ComposerDraft = {
  // The file's address is typed, or the upload's once uploaded: the screen fills it in.
  ...(emptyValues(COMPOSER_FORMS) as Record<string, string | boolean>),
  mediaUrl: '',
  filename: '',
  instanceId: '',
  number: '',
  kind: 'text',
  replyTo: '',
  mentions: '',
}

/**
 * The send_message parameters of a draft, as a script would send them: only what its kind uses, and each
 * optional field only when filled in (so a plain text is exactly the seed's request).
 */
export function composerParams(draft: ComposerDraft): Record<string, unknown> {
  return {
    instance_id: draft.instanceId,
    number: draft.number,
    type: draft.kind,
    ...formRequest(formOf(COMPOSER_FORMS, draft.kind), draft),
    ...replyRequest(draft),
  }
}

/** A draft begun from the location hash's query (`#/composer?instance_id=…&number=…&reply_to=…`). */
export function draftFromQuery(query: URLSearchParams): ComposerDraft {
  return {
    ...EMPTY_DRAFT,
    instanceId: query.get('instance_id') ?? '',
    number: query.get('number') ?? '',
    replyTo: query.get('reply_to') ?? '',
  }
}
