import { usePicture } from './use-picture'
import './Avatar.css'

/** The name's initials on a colour of its own (the same name, the same colour). */
function Initials({ name, group }: { name: string; group: boolean }) {
  const initials =
    name
      .replace(/^\+/, '')
      .split(/\s+/)
      .filter((word) => word !== '')
      .slice(0, 2)
      .map((word) => word[0]?.toUpperCase() ?? '')
      .join('') || '?'
  let hash = 0
  for (const char of name) hash = (hash * 31 + char.charCodeAt(0)) % 360
  return (
    <span
      className={`avatar${group ? ' avatar-group' : ''}`}
      style={{ ['--avatar-hue' as string]: String(hash) }}
      aria-hidden="true"
    >
      {initials}
    </span>
  )
}

/** A chat's picture: its profile picture once read, its initials until then (and when it has none). */
export function Avatar({
  instanceId,
  chat,
  name,
  group,
}: {
  instanceId: string
  chat: string
  name: string
  group: boolean
}) {
  const picture = usePicture(instanceId, chat)
  if (!picture) return <Initials name={name} group={group} />
  return <img className={`avatar${group ? ' avatar-group' : ''}`} src={picture} alt="" />
}
