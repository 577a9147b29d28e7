import type { InstanceAccount } from '../../api/types'
import './AccountAvatar.css'

/** Pictures the window's CSP allows: inline data and this server's own files. */
function displayable(url: string): boolean {
  return url.startsWith('data:image/') || url.startsWith('./') || url.startsWith('/')
}

/** The account's picture, or its initials (also for pictures hosted elsewhere, which the CSP blocks). */
export function AccountAvatar({ account }: { account: InstanceAccount | null }) {
  if (account?.avatar && displayable(account.avatar)) {
    return <img className="avatar" src={account.avatar} alt="" width={40} height={40} />
  }
  const initials = (account?.name || account?.number || '?')
    .split(/\s+/)
    .map((word) => word[0] ?? '')
    .join('')
    .slice(0, 2)
    .toUpperCase()
  return (
    <span className="avatar avatar-initials" aria-hidden="true">
      {initials}
    </span>
  )
}
