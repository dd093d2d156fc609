import { isConnectorEligible } from '../auth/entitlements.js';
import type { AccessTokenView } from '../credentials/credentials.service.js';
import { roleMay } from '../credentials/credentials.access.js';
import type { ConnectedClientView } from '../oauth/grant.service.js';
import { html, type SafeHtml } from '../users/html.js';
import { credentialStatus, type CreatedSecret } from './keys.pages.js';
import {
  SETTINGS_PATHS,
  confirmPage,
  formFields,
  formTime,
  secretBox,
  settingsPage,
  teamUrl,
  type Messages,
  type SettingsView,
} from './settings.layout.js';

export interface TokenDraft {
  name: string;
  expires: string;
}

export interface ApiSettings {
  /** Personal MCP access tokens (connector tokens are shown as connected clients). */
  tokens: readonly AccessTokenView[];
  clients: readonly ConnectedClientView[];
  /** Members' emails by user id, to say whose a token is. */
  emails: ReadonlyMap<number, string>;
}

/** Whether the viewer may revoke a token or disconnect a client of `userId`. */
function mayManage(view: SettingsView, userId: number | null): boolean {
  return (
    roleMay(view.role, 'manage-team-tokens') ||
    (userId === view.user.id && roleMay(view.role, 'manage-own-tokens'))
  );
}

function tokenRow(view: SettingsView, token: AccessTokenView, emails: ReadonlyMap<number, string>): SafeHtml {
  const status = credentialStatus(token, view.now);
  const owner = token.userId === null ? 'the team' : (emails.get(token.userId) ?? `user ${token.userId}`);
  return html`<tr>
    <td data-label="Name">${token.name}</td>
    <td data-label="Prefix"><code>${token.prefix}</code></td>
    <td data-label="Acts as">${owner}</td>
    <td data-label="Created">${formTime(token.createdAt)}</td>
    <td data-label="Last used">${formTime(token.lastUsedAt)}</td>
    <td data-label="Expires">${formTime(token.expiresAt, 'no expiry')}</td>
    <td data-label="Status"><span class="status-${status}">${status}</span></td>
    <td data-label="Actions">
      ${
        status === 'active' && mayManage(view, token.userId)
          ? html`<a
              href="${teamUrl(`${SETTINGS_PATHS.api}/tokens/${token.id}/revoke`, view.team.id)}"
              aria-label="Revoke ${token.name}"
              >Revoke</a
            >`
          : ''
      }
    </td>
  </tr>`;
}

function tokensSection(view: SettingsView, data: ApiSettings, draft: TokenDraft | undefined): SafeHtml {
  const table = data.tokens.length
    ? html`<div class="table-wrap">
        <table class="stack">
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Prefix</th>
              <th scope="col">Acts as</th>
              <th scope="col">Created</th>
              <th scope="col">Last used</th>
              <th scope="col">Expires</th>
              <th scope="col">Status</th>
              <th scope="col"><span class="muted">Actions</span></th>
            </tr>
          </thead>
          <tbody>
            ${data.tokens.map((t) => tokenRow(view, t, data.emails))}
          </tbody>
        </table>
      </div>`
    : html`<p class="muted">No MCP access tokens yet.</p>`;
  return html`<section aria-labelledby="tokens-title">
    <h2 id="tokens-title">MCP access tokens</h2>
    <p class="muted">
      A token lets an AI client call the tool server at <code>${view.baseUrl}/mcp</code> as you, with
      <code>Authorization: Bearer &lt;ACCESS_TOKEN&gt;</code>.
    </p>
    ${table}
    <h3>Create a token</h3>
    <form method="post" action="${SETTINGS_PATHS.api}/tokens">
      ${formFields(view)}
      <label for="token-name">Name</label>
      <input id="token-name" name="name" type="text" required maxlength="200" value="${draft?.name ?? ''}" />
      <label for="token-expires"
        >Expires on <span class="muted">(optional, the token works through that day, UTC)</span></label
      >
      <input id="token-expires" name="expires" type="date" value="${draft?.expires ?? ''}" />
      <button class="primary" type="submit">Create token</button>
    </form>
  </section>`;
}

function clientRow(view: SettingsView, client: ConnectedClientView): SafeHtml {
  return html`<tr>
    <td data-label="Client">${client.clientName}</td>
    <td data-label="Redirect host"><code>${client.redirectHost}</code></td>
    <td data-label="Person">${client.userEmail}</td>
    <td data-label="Connected">${formTime(client.connectedAt)}</td>
    <td data-label="Last used">${formTime(client.lastUsedAt)}</td>
    <td data-label="Actions">
      ${
        mayManage(view, client.userId)
          ? html`<a
              href="${teamUrl(`${SETTINGS_PATHS.api}/clients/${client.id}/disconnect`, view.team.id)}"
              aria-label="Disconnect ${client.clientName}"
              >Disconnect</a
            >`
          : ''
      }
    </td>
  </tr>`;
}

function clientsSection(view: SettingsView, clients: readonly ConnectedClientView[]): SafeHtml {
  const eligible = isConnectorEligible(view.team, view.now);
  return html`<section aria-labelledby="clients-title">
    <h2 id="clients-title">Connected AI clients</h2>
    <p class="muted">
      AI clients connected with the OAuth connector, one line per person and client. Disconnecting ends the
      connection: the client's next request is refused and it must ask to connect again.
      ${eligible ? '' : 'Connecting new clients needs an Agent or Enterprise subscription in good standing.'}
    </p>
    ${
      clients.length
        ? html`<div class="table-wrap">
            <table class="stack">
              <thead>
                <tr>
                  <th scope="col">Client</th>
                  <th scope="col">Redirect host</th>
                  <th scope="col">Person</th>
                  <th scope="col">Connected</th>
                  <th scope="col">Last used</th>
                  <th scope="col"><span class="muted">Actions</span></th>
                </tr>
              </thead>
              <tbody>
                ${clients.map((c) => clientRow(view, c))}
              </tbody>
            </table>
          </div>`
        : html`<p class="muted">No AI clients are connected.</p>`
    }
  </section>`;
}

export function apiSettingsPage(
  view: SettingsView,
  data: ApiSettings,
  opts: Messages & { created?: CreatedSecret; draft?: TokenDraft } = {},
): SafeHtml {
  return settingsPage(
    view,
    SETTINGS_PATHS.api,
    'API settings',
    [
      opts.created
        ? secretBox(
            opts.created.title,
            opts.created.secret,
            html`<p>Give it to your AI client as a bearer token for <code>${view.baseUrl}/mcp</code>.</p>`,
          )
        : html``,
      tokensSection(view, data, opts.draft),
      clientsSection(view, data.clients),
    ],
    opts,
  );
}

export function revokeTokenPage(view: SettingsView, token: AccessTokenView, m: Messages = {}): SafeHtml {
  return confirmPage(
    view,
    SETTINGS_PATHS.api,
    `Revoke token ${token.name}?`,
    html`AI clients using <strong>${token.name}</strong> (<code>${token.prefix}</code>) are refused from their
      next request. This cannot be undone.`,
    `${SETTINGS_PATHS.api}/tokens/${token.id}/revoke`,
    'Revoke token',
    m,
  );
}

export function disconnectPage(view: SettingsView, client: ConnectedClientView, m: Messages = {}): SafeHtml {
  return confirmPage(
    view,
    SETTINGS_PATHS.api,
    `Disconnect ${client.clientName}?`,
    html`<strong>${client.clientName}</strong> (connected by ${client.userEmail}, returning to
      <code>${client.redirectHost}</code>) is refused from its next request and must ask to connect again.`,
    `${SETTINGS_PATHS.api}/clients/${client.id}/disconnect`,
    'Disconnect',
    m,
  );
}
