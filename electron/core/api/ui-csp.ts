/** The Content-Security-Policy of the UI: served by the core with its pages, and enforced by the desktop window. */
export const UI_CSP = [
  "default-src 'self'",
  "img-src 'self' data: blob:",
  // The Chats screen plays a message's audio and video from the file it read with the window's credential.
  "media-src 'self' blob:",
  "style-src 'self' 'unsafe-inline'",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "frame-ancestors 'none'",
  "form-action 'self'",
].join('; ')
