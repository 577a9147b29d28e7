import { randomBytes } from 'node:crypto'
import { child, children, type BinaryNode, iqError, iqResult, node, SERVER_JID, unixNow } from './binary-node'
import type { StanzaContext } from './stanza-router'
import type { Account } from '../accounts/account'
import type { LinkedDevice } from '../accounts/linked-device'
import { LabelsNotAllowed } from '../accounts/app-state'

/** Tells the account's connected devices (but `except`) that a collection moved, as the network does (server_sync). */
export function announceAppStateVersion(
  account: Account,
  collection: string,
  version: number,
  except?: LinkedDevice,
): void {
  for (const other of account.activeDevices()) {
    if (other === except) continue
    other.deliver(
      node(
        'notification',
        { from: SERVER_JID, type: 'server_sync', id: randomBytes(8).toString('hex'), t: String(unixNow()) },
        [node('collection', { name: collection, version: String(version) })],
      ),
    )
  }
}

/**
 * The app-state sync query: a device pushes a patch to a collection (kept as its next version, and what it
 * changes that others see, the display name, applied), or asks for the patches after the version it has. A
 * personal account's patch that carries labels is refused (403 forbidden) and nothing is kept.
 * The account's other devices are told a collection moved (server_sync), as the network tells them.
 */
export async function answerAppStateSync(
  { connection, session, log }: StanzaContext,
  iq: BinaryNode,
  sync: BinaryNode | undefined,
): Promise<void> {
  if (!session) return connection.send(iqError(iq, 401, 'not-authorized'))
  const { account, device } = session
  const answers: BinaryNode[] = []
  for (const collection of children(sync, 'collection')) {
    const name = collection.attrs.name ?? ''
    const version = Number(collection.attrs.version ?? '0')
    const current = account.appState.version(name)
    const patch = child(collection, 'patch')?.content
    if (patch instanceof Uint8Array) {
      // A patch made from an older version would fork the collection: the device must sync first.
      if (version !== current) return connection.send(iqError(iq, 409, 'conflict'))
      try {
        for (const change of await account.appState.apply(name, patch, { labels: account.business })) {
          if (change.kind === 'push_name') account.update(change.name, undefined)
        }
      } catch (error) {
        if (error instanceof LabelsNotAllowed) return connection.send(iqError(iq, 403, 'forbidden'))
        log.warn({ err: error, collection: name }, 'an app-state patch could not be read')
        return connection.send(iqError(iq, 400, 'bad-request'))
      }
      answers.push(node('collection', { name, version: String(current + 1) }))
      announceAppStateVersion(account, name, current + 1, device)
      continue
    }
    account.appState.requested(name, version)
    const patches = account.appState.patchesAfter(name, version).map((bytes) => node('patch', {}, bytes))
    answers.push(
      node(
        'collection',
        { name, version: String(current) },
        patches.length ? [node('patches', {}, patches)] : [],
      ),
    )
  }
  connection.send(iqResult(iq, [node('sync', {}, answers)]))
}
