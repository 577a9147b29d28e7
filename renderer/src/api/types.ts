/** What the UI reads from the API. The UI keeps its own copy of these shapes: it never imports core code. */

/** An access token as the admin API lists it: never its value. */
export interface TokenInfo {
  id: string
  label: string
  createdAt: number
  source: 'env' | 'ui'
}

export interface TokenList {
  tokens: TokenInfo[]
}

export interface CreatedToken {
  token: string
  info: TokenInfo
}

/** The linked account of an instance. */
export interface InstanceAccount {
  id: string
  number: string
  name: string
  avatar: string
}

/** One instance as the `instances` operation reports it; times are Unix seconds. */
export interface InstanceSummary {
  instance_id: string
  state: string
  /** Why it is in that state, e.g. waiting_for_scan, qr_expired, retrying. */
  cause?: string
  since?: number | null
  linked?: boolean
  account?: InstanceAccount | null
  last_error?: { code: number | null; cause: string; message: string; at: number | null } | null
  created_at?: number | null
}

export interface InstanceList {
  instances: InstanceSummary[]
}

export interface LoginAnswer {
  ui_token: string
}
