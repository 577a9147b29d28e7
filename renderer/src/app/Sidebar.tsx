import { useSandbox } from './service-context'
import { ThemeToggle } from './ThemeToggle'
import { ROUTES, type RouteId, SANDBOX_ONLY, hrefFor } from './routes'
import './Sidebar.css'

/**
 * The navigation: one link per screen, the API docs (opened outside the window), the theme switch and, in a
 * browser, log-out.
 */
export function Sidebar({
  route,
  docsUrl,
  onLogOut,
}: {
  route: RouteId
  docsUrl: string
  onLogOut?: () => void
}) {
  const sandbox = useSandbox()
  return (
    <nav className="sidebar" aria-label="Main">
      <div className="brand">
        <img src="./favicon.png" alt="" width={24} height={24} />
        <span>Linkdesk</span>
      </div>
      <ul>
        {ROUTES.filter(({ id }) => sandbox || !SANDBOX_ONLY.has(id)).map(({ id, title }) => (
          <li key={id}>
            <a href={hrefFor(id)} aria-current={route === id ? 'page' : undefined}>
              {title}
            </a>
          </li>
        ))}
        <li>
          <a href={docsUrl} target="_blank" rel="noreferrer">
            API docs <span aria-hidden="true">↗</span>
            <span className="visually-hidden"> (opens outside this window)</span>
          </a>
        </li>
      </ul>
      <ThemeToggle />
      {onLogOut ? (
        <button type="button" className="log-out" onClick={onLogOut}>
          Log out
        </button>
      ) : null}
    </nav>
  )
}
