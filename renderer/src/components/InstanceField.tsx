import { useEffect, useId, useState } from 'react'
import type { InstanceList } from '../api/types'
import { useApi } from '../app/api-context'

/** An instance id input that suggests the server's instances when it can list them. */
export function InstanceField({ value, onChange }: { value: string; onChange(value: string): void }) {
  const api = useApi()
  const id = useId()
  const [known, setKnown] = useState<string[]>([])
  useEffect(() => {
    api.call<InstanceList>('instances').then(
      (answer) => setKnown(answer.instances.map((instance) => instance.instance_id)),
      () => setKnown([]),
    )
  }, [api])
  return (
    <div className="field">
      <label htmlFor={`${id}-instance`}>Instance id</label>
      <input
        id={`${id}-instance`}
        list={`${id}-instances`}
        value={value}
        required
        spellCheck={false}
        onChange={(event) => onChange(event.target.value.trim())}
      />
      <datalist id={`${id}-instances`}>
        {known.map((instanceId) => (
          <option key={instanceId} value={instanceId} />
        ))}
      </datalist>
    </div>
  )
}
