import { EVENT_CATALOGUE, EVENT_NAMES } from '../electron/core/contract/event-catalogue'
import { kindsForWindow } from '../electron/core/contract/kinds'

/**
 * Values the UI takes from the core at build time. The window imports only type definitions from the core,
 * so what it needs of the event catalogue and of the message kinds (their forms, their summaries) at run time
 * is put into the bundle here.
 */
export const RENDERER_DEFINES = {
  __LINKDESK_EVENTS__: JSON.stringify(
    EVENT_NAMES.map((name) => ({ name, changesInstance: EVENT_CATALOGUE[name].changesInstance })),
  ),
  __LINKDESK_KINDS__: JSON.stringify(kindsForWindow()),
}
