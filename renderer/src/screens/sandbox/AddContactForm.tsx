import { type FormEvent, useState } from 'react'
import { useApi } from '../../app/api-context'
import { useAction } from '../../app/use-action'
import { ErrorNotice } from '../../components/ErrorNotice'

/** Registers a simulated account: a number that exists on the sandbox network. */
export function AddContactForm({ onAdded }: { onAdded(phone: string): void }) {
  const api = useApi()
  const [phone, setPhone] = useState('')
  const [name, setName] = useState('')
  const [echo, setEcho] = useState(false)
  const { error, run } = useAction()
  const add = async (event: FormEvent) => {
    event.preventDefault()
    const json = { phone, ...(name ? { name } : {}), ...(echo ? { auto_reply: 'echo' } : {}) }
    const added = await run(() => api.request<{ phone: string }>('POST', 'sandbox/accounts', { json }))
    if (!added) return
    setPhone('')
    setName('')
    onAdded(added.phone)
  }
  return (
    <form className="stack" onSubmit={(event) => void add(event)} aria-labelledby="add-contact-title">
      <h2 id="add-contact-title">Add a contact</h2>
      <div className="field">
        <label htmlFor="contact-phone">Phone number</label>
        <input
          id="contact-phone"
          value={phone}
          required
          inputMode="tel"
          placeholder="e.g. 15550002222"
          onChange={(event) => setPhone(event.target.value.trim())}
        />
      </div>
      <div className="field">
        <label htmlFor="contact-name">Name (optional)</label>
        <input id="contact-name" value={name} onChange={(event) => setName(event.target.value)} />
      </div>
      <div className="field-inline">
        <input id="contact-echo" type="checkbox" checked={echo} onChange={(e) => setEcho(e.target.checked)} />
        <label htmlFor="contact-echo">Answer every text with “echo: &lt;text&gt;”</label>
      </div>
      <div className="actions">
        <button type="submit">Add contact</button>
      </div>
      {error ? <ErrorNotice error={error} context="Contact not added" /> : null}
    </form>
  )
}
