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

export interface CreatedInstance {
  instance_id: string
}

/** One instance as the list operation reports it; fields beyond the id appear as the server offers them. */
export interface InstanceSummary {
  instance_id: string
  state?: string
  account?: { id?: string; name?: string; avatar?: string } | null
  created_at?: number
}

export interface InstanceList {
  instances: InstanceSummary[]
}

export interface LoginAnswer {
  ui_token: string
}
