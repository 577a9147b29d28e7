import { useEffect, useId } from 'react'
import { stateInWords } from '../screens/instances/StateBadge'
import { instanceLabel } from '../screens/instances/instance-label'
import { useInstances } from '../screens/instances/use-instances'

interface InstanceSelectProps {
  value: string
  onChange(value: string): void
  /** Offers "All instances" (an empty value), for filters. */
  allowAll?: boolean
  label?: string
}

/** Chooses one of the server's instances by account and state; picks the first connected one by itself. */
export function InstanceSelect({ value, onChange, allowAll, label = 'Instance' }: InstanceSelectProps) {
  const id = useId()
  const [list] = useInstances()
  const instances = list.status === 'ready' ? list.data : []
  useEffect(() => {
    if (allowAll || value || instances.length === 0) return
    const preferred = instances.find((instance) => instance.state === 'connected') ?? instances[0]
    if (preferred) onChange(preferred.instance_id)
  }, [allowAll, value, instances, onChange])
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      <select id={id} value={value} required={!allowAll} onChange={(event) => onChange(event.target.value)}>
        {allowAll ? <option value="">All instances</option> : null}
        {!allowAll && instances.length === 0 ? (
          <option value="">No instances yet: create one first</option>
        ) : null}
        {instances.map((instance) => (
          <option key={instance.instance_id} value={instance.instance_id}>
            {instanceLabel(instance)} — {stateInWords(instance.state)}
          </option>
        ))}
      </select>
    </div>
  )
}
