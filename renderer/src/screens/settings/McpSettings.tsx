import { CopyButton } from '../../components/CopyButton'
import { httpClientConfig, mcpEndpoint, stdioClientConfig } from './mcp-config'
import './McpSettings.css'

/** A configuration to copy into an MCP client, in a read-only field. */
function ClientConfig({ id, label, text }: { id: string; label: string; text: string }) {
  return (
    <div className="mcp-config">
      <label htmlFor={id}>{label}</label>
      <textarea
        id={id}
        readOnly
        spellCheck={false}
        rows={text.split('\n').length}
        value={text}
        onFocus={(event) => event.target.select()}
      />
      <CopyButton text={text} label={label} />
    </div>
  )
}

/** Where AI agents connect (the MCP endpoint) and the configurations their clients take. */
export function McpSettings({ apiBase }: { apiBase: string }) {
  return (
    <section aria-labelledby="mcp-settings-title" className="stack">
      <h2 id="mcp-settings-title">AI agents (MCP)</h2>
      <dl className="facts">
        <dt>MCP endpoint</dt>
        <dd>
          <code>{mcpEndpoint(apiBase)}</code>
        </dd>
      </dl>
      <p>
        An MCP client connects with an access token from the Tokens screen: it gets one tool per operation the
        token&apos;s scopes allow (read: the lists and logs; send: messages and what a conversation does;
        manage; admin), on the instances the token reaches, and each instance&apos;s events and chats as
        resources. Desktop clients start the stdio launcher from the Linkdesk folder; clients that speak HTTP
        take the URL.
      </p>
      <ClientConfig
        id="mcp-stdio-config"
        label="Desktop client configuration (stdio launcher)"
        text={stdioClientConfig(apiBase)}
      />
      <ClientConfig
        id="mcp-http-config"
        label="HTTP client configuration (URL and bearer token)"
        text={httpClientConfig(apiBase)}
      />
    </section>
  )
}
