/**
 * How long the network lets a sender change what it sent, as WhatsApp's apps state it (Baileys enforces
 * neither; the network refuses late ones). A client refuses past them before sending; the sandbox, which
 * plays the network, ignores a late edit or delete as WhatsApp does.
 */
export const EDIT_WINDOW_SECONDS = 15 * 60

/** Delete for everyone: about two and a half days after the message was sent. */
export const REVOKE_WINDOW_SECONDS = 60 * 60 * 60
