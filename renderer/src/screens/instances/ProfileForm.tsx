import { type FormEvent, useState } from 'react'
import type { UploadAnswer } from '../../api/types'
import { useApi } from '../../app/api-context'
import { useAction } from '../../app/use-action'
import { ErrorNotice } from '../../components/ErrorNotice'

/** Changes the account's display name, about text and picture, as set_profile does. */
export function ProfileForm({ instanceId, name: currentName }: { instanceId: string; name: string | null }) {
  const api = useApi()
  const [name, setName] = useState(currentName ?? '')
  const [about, setAbout] = useState('')
  const [picture, setPicture] = useState<File | null>(null)
  const [changed, setChanged] = useState<string[] | null>(null)
  const { busy, error, run, relabel } = useAction()
  const save = async (event: FormEvent) => {
    event.preventDefault()
    setChanged(null)
    const answer = await run(async () => {
      const params: Record<string, string> = { instance_id: instanceId }
      if (name.trim() && name.trim() !== currentName) params.name = name.trim()
      if (about) params.about = about
      if (picture) {
        relabel('Uploading…')
        params.media_url = (await api.request<UploadAnswer>('POST', 'uploads', { file: picture })).url
      }
      relabel('Saving…')
      return api.call<{ changed: string[] }>('set_profile', params)
    }, 'Saving…')
    if (answer) setChanged(answer.changed)
  }
  return (
    <form className="stack" onSubmit={(event) => void save(event)} aria-labelledby="profile-title">
      <h2 id="profile-title">Profile</h2>
      <div className="field">
        <label htmlFor="profile-name">Display name</label>
        <input
          id="profile-name"
          value={name}
          maxLength={25}
          aria-describedby="profile-name-hint"
          onChange={(event) => setName(event.target.value)}
        />
        <p id="profile-name-hint" className="hint">
          What contacts see on the account&apos;s messages (at most 25 characters).
        </p>
      </div>
      <div className="field">
        <label htmlFor="profile-about">About</label>
        <input
          id="profile-about"
          value={about}
          maxLength={139}
          placeholder="Unchanged"
          onChange={(event) => setAbout(event.target.value)}
        />
      </div>
      <div className="field">
        <label htmlFor="profile-picture">Picture</label>
        <input
          id="profile-picture"
          type="file"
          accept="image/*"
          onChange={(event) => setPicture(event.target.files?.[0] ?? null)}
        />
      </div>
      <div className="actions">
        <button type="submit" disabled={busy !== null}>
          {busy ?? 'Save profile'}
        </button>
      </div>
      {changed ? (
        <p role="status">{changed.length ? `Changed: ${changed.join(', ')}.` : 'Nothing to change.'}</p>
      ) : null}
      {error ? <ErrorNotice error={error} context="Profile not changed" /> : null}
    </form>
  )
}
