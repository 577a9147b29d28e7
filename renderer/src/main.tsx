import { StrictMode, Suspense } from 'react'
import { createRoot } from 'react-dom/client'
// The theme and the shared element styles first: each component's own file comes after them and may refine them.
import './styles/theme.css'
import './styles/base.css'
import { App } from './app/App'
import { browserEnvironment, resolveSession } from './auth/session'

const environment = browserEnvironment()
// Resolved once, outside React: a login code may be exchanged only once.
const session = resolveSession(environment)

const root = document.getElementById('root')
if (!root) throw new Error('index.html has no #root element')

createRoot(root).render(
  <StrictMode>
    <Suspense fallback={<p className="loading">Loading Linkdesk…</p>}>
      <App session={session} environment={environment} />
    </Suspense>
  </StrictMode>,
)
