import { useEffect, useState } from 'react'
import { type RouteId, routeFromHash, subpathFromHash } from './routes'

export interface HashLocation {
  route: RouteId
  /** The segments after the screen, e.g. an instance id. */
  subpath: string[]
}

function read(): HashLocation {
  return { route: routeFromHash(window.location.hash), subpath: subpathFromHash(window.location.hash) }
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
