import { useState } from 'react'
import { EmptyState } from '../../components/EmptyState'
import { ErrorNotice } from '../../components/ErrorNotice'
import { ScreenHeader } from '../../components/ScreenHeader'
import { useInstances } from '../instances/use-instances'
import { AddContactForm } from './AddContactForm'
import { ContactPanel } from './ContactPanel'
import { useSandboxAccounts } from './use-sandbox-accounts'
import './SandboxScreen.css'

/** The simulated network's contacts: add one, send as one, read what one received. */
export function SandboxScreen() {
  const [accounts, reload] = useSandboxAccounts()
  const [instances] = useInstances()
  const [chosen, setChosen] = useState<string | null>(null)
  const list = accounts.status === 'ready' ? accounts.data : []
  const contact =
    list.find((account) => account.phone === chosen) ?? list.find((a) => a.linkedDevices.length === 0)
  const firstConnected =
    instances.status === 'ready'
      ? instances.data.find((instance) => instance.state === 'connected')
      : undefined

  return (
    <section aria-labelledby="sandbox-title">
      <ScreenHeader
        id="sandbox-title"
        title="Sandbox"
        lead="A simulated network inside Linkdesk: contacts are simulated accounts that receive, acknowledge and may answer, with no phone and no real account."
      />
      {accounts.status === 'failed' ? (
        <ErrorNotice error={accounts.error} context="Sandbox accounts" />
      ) : null}
      <div className="sandbox-layout">
        <div className="stack">
          <AddContactForm
            onAdded={(phone) => {
              setChosen(phone)
              void reload()
            }}
          />
          <h2>Accounts</h2>
          {list.length === 0 ? (
            <EmptyState title="No contacts yet">
              <p>Add a contact above, then send it a message from the Composer.</p>
            </EmptyState>
          ) : (
            <ul className="contact-list" aria-label="Sandbox accounts">
              {list.map((account) => (
                <li key={account.phone}>
                  <button
                    type="button"
                    aria-pressed={contact?.phone === account.phone}
                    onClick={() => setChosen(account.phone)}
                  >
                    {account.name || 'Unnamed'} +{account.phone}
                    {account.linkedDevices.length > 0 ? ' (phone of a linked instance)' : ''}
                    {account.autoReply ? ' · echoes' : ''}
                  </button>
                </li>
              ))}
            </ul>
          )}
        </div>
        {contact ? (
          <ContactPanel
            key={contact.phone}
            contact={contact}
            suggestedTo={firstConnected?.account?.number ?? ''}
          />
        ) : null}
      </div>
    </section>
  )
}
