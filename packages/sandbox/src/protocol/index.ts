/**
 * What a WhatsApp client and the network both have to agree on, for the sandbox (which plays the network)
 * and for the clients that use it.
 */
export { EDIT_WINDOW_SECONDS, REVOKE_WINDOW_SECONDS } from './action-limits'
export { clientVersionDocument, parseClientRevision } from './client-version'
export { type ContactCard, contactCardVcard, parseContactCard } from './contact-card'
