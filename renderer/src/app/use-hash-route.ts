import { useEffect, useState } from 'react'
import { type RouteId, routeFromHash } from './routes'

/** The current screen, following the location hash (the server serves only static files, so no paths). */
export function useHashRoute(): RouteId {
  const [route, setRoute] = useState<RouteId>(() => routeFromHash(window.location.hash))
  useEffect(() => {
    const follow = () => setRoute(routeFromHash(window.location.hash))
    window.addEventListener('hashchange', follow)
    return () => window.removeEventListener('hashchange', follow)
  }, [])
  return route
}
