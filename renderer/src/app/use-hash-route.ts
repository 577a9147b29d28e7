import { useEffect, useState } from 'react'
import { queryFromHash, type RouteId, routeFromHash, subpathFromHash } from './routes'

export interface HashLocation {
  route: RouteId
  /** The segments after the screen, e.g. an instance id. */
  subpath: string[]
  /** What follows `?`, e.g. the fields a screen begins with. */
  query: URLSearchParams
}

function read(): HashLocation {
  const { hash } = window.location
  return { route: routeFromHash(hash), subpath: subpathFromHash(hash), query: queryFromHash(hash) }
}

/** The current screen, following the location hash (the server serves only static files, so no paths). */
export function useHashLocation(): HashLocation {
  const [location, setLocation] = useState<HashLocation>(read)
  useEffect(() => {
    const follow = () => setLocation(read())
    window.addEventListener('hashchange', follow)
    return () => window.removeEventListener('hashchange', follow)
  }, [])
  return location
}
