import { useEffect, useState } from 'react'
import type { ApiClient } from '../../api/client'
import { useApi } from '../../app/api-context'

/** Each chat's picture is read once per window (the server asks the network for it on each read). */
const pictures = new Map<string, Promise<string | null>>()

/** A row scrolled past quickly asks for nothing: only one that stays this long in view. */
const SETTLE_MS = 300

function readPicture(api: ApiClient, instanceId: string, chat: string): Promise<string | null> {
  const key = `${instanceId}/${chat}`
  let known = pictures.get(key)
  if (!known) {
    known = api
      .call<{ picture_url: string | null }>('profile', { instance_id: instanceId, number: chat })
      .then(async ({ picture_url: url }) => (url ? URL.createObjectURL(await api.fetchBlob(url)) : null))
      .catch(() => null)
    pictures.set(key, known)
  }
  return known
}

/** The chat's profile picture as an object URL; null while unknown, or when it has none. */
export function usePicture(instanceId: string, chat: string): string | null {
  const api = useApi()
  const [src, setSrc] = useState<string | null>(null)
  useEffect(() => {
    let current = true
    const timer = setTimeout(() => {
      void readPicture(api, instanceId, chat).then((url) => current && setSrc(url))
    }, SETTLE_MS)
    return () => {
      current = false
      clearTimeout(timer)
    }
  }, [api, instanceId, chat])
  return src
}
