import { FUSION_PLANS } from '../auth/entitlements.js';
import type { ApiKeyView } from '../credentials/credentials.service.js';
import { roleMay } from '../credentials/credentials.access.js';
import { FUSION_SCOPES } from '../enums.js';
import { html, type SafeHtml } from '../users/html.js';
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

export const SCOPE_LABELS: Record<string, string> = {
  'building-links': 'Building Link API',
  'floorplan-match': 'Floor Plan Match API',
  changes: 'Change feed',
};

/** How long a rolled key's old secret keeps working: the choices the roll form offers. */
export const ROLL_OVERLAPS: readonly { seconds: number; label: string }[] = [
  { seconds: 0, label: 'Immediately' },
  { seconds: 3600, label: 'In 1 hour' },
  { seconds: 86_400, label: 'In 24 hours' },
  { seconds: 7 * 86_400, label: 'In 7 days' },
  { seconds: 30 * 86_400, label: 'In 30 days' },
];

export type CredentialStatus = 'active' | 'revoked' | 'expired';

export function credentialStatus(
  c: Pick<ApiKeyView, 'revokedAt' | 'expiresAt'>,
  now: Date,
): CredentialStatus {
  if (c.revokedAt) return 'revoked';
  if (c.expiresAt && c.expiresAt.getTime() <= now.getTime()) return 'expired';
  return 'active';
}

/** What a person typed, put back in the form when it was refused. */
export interface KeyDraft {
  name: string;
  scopes: string[];
  expires: string;
}

function createForm(view: SettingsView, draft: KeyDraft | undefined): SafeHtml {
  if (!roleMay(view.role, 'manage-keys')) {
    return html`<p class="muted">Only an owner or admin of the team can create, roll or revoke keys.</p>`;
  }
  const fusion = FUSION_PLANS.includes(view.team.plan);
  return html`<form method="post" action="${SETTINGS_PATHS.apiKeys}">
    ${formFields(view)}
    <label for="key-name">Name</label>
    <input id="key-name" name="name" type="text" required maxlength="200" value="${draft?.name ?? ''}" />
    <fieldset class="checks">
      <legend>Scopes</legend>
      ${FUSION_SCOPES.map(
        (scope) =>
          html`<label class="${fusion ? '' : 'disabled'}">
            <input
              type="checkbox"
              name="scopes"
              value="${scope}"
              ${fusion ? '' : html`disabled`}
              ${draft?.scopes.includes(scope) ? html`checked` : ''}
            />
            <span><code>${scope}</code> ${SCOPE_LABELS[scope]}</span>
          </label>`,
      )}
      ${
        fusion
          ? ''
          : html`<p class="muted" id="scopes-hint">
              The Fusion scopes can be chosen only on a Pro or Elite plan; this team is on ${view.team.plan}.
              Upgrade to Pro or Elite to call the Building Link and Floor Plan Match APIs.
            </p>`
      }
    </fieldset>
    <label for="key-expires"
      >Expires on <span class="muted">(optional, the key works through that day, UTC)</span></label
    >
    <input id="key-expires" name="expires" type="date" value="${draft?.expires ?? ''}" />
    <button class="primary" type="submit">Create key</button>
  </form>`;
}

function keyRow(view: SettingsView, key: ApiKeyView): SafeHtml {
  const status = credentialStatus(key, view.now);
  const manage = roleMay(view.role, 'manage-keys') && status === 'active';
  const path = (action: string) => teamUrl(`${SETTINGS_PATHS.apiKeys}/${key.id}/${action}`, view.team.id);
  return html`<tr>
    <td data-label="Name">${key.name}</td>
    <td data-label="Prefix"><code>${key.prefix}</code></td>
    <td data-label="Scopes">
      ${key.scopes.length ? key.scopes.join(', ') : html`<span class="muted">none</span>`}
    </td>
    <td data-label="Created">${formTime(key.createdAt)}</td>
    <td data-label="Last used">${formTime(key.lastUsedAt)}</td>
    <td data-label="Expires">${formTime(key.expiresAt, 'no expiry')}</td>
    <td data-label="Status"><span class="status-${status}">${status}</span></td>
    <td data-label="Actions">
      ${
        manage
          ? html`<span class="actions"
              ><a href="${path('roll')}" aria-label="Roll ${key.name}">Roll</a
              ><a href="${path('revoke')}" aria-label="Revoke ${key.name}">Revoke</a></span
            >`
          : ''
      }
    </td>
  </tr>`;
}

function keyTable(view: SettingsView, keys: readonly ApiKeyView[]): SafeHtml {
  if (!keys.length) return html`<p class="muted">The team has no API keys yet.</p>`;
  return html`<div class="table-wrap">
    <table class="stack">
      <thead>
        <tr>
          <th scope="col">Name</th>
          <th scope="col">Prefix</th>
          <th scope="col">Scopes</th>
          <th scope="col">Created</th>
          <th scope="col">Last used</th>
          <th scope="col">Expires</th>
          <th scope="col">Status</th>
          <th scope="col"><span class="muted">Actions</span></th>
        </tr>
      </thead>
      <tbody>
        ${keys.map((k) => keyRow(view, k))}
      </tbody>
    </table>
  </div>`;
}

export interface CreatedSecret {
  title: string;
  secret: string;
}

function tryIt(view: SettingsView, secret: string): SafeHtml {
  return html`<p>Try it (building 1 of the demo data), as the integrators' guide shows:</p>
    <code class="block"
      >curl -si ${view.baseUrl}/api/v1/building-links/1 -H "authorization: Bearer ${secret}"</code
    >`;
}

export function apiKeysPage(
  view: SettingsView,
  keys: readonly ApiKeyView[],
  opts: Messages & { created?: CreatedSecret; draft?: KeyDraft } = {},
): SafeHtml {
  return settingsPage(
    view,
    SETTINGS_PATHS.apiKeys,
    'API keys',
    [
      opts.created
        ? secretBox(opts.created.title, opts.created.secret, tryIt(view, opts.created.secret))
        : html``,
      html`<section aria-labelledby="keys-title">
        <h2 id="keys-title">Keys</h2>
        <p class="muted">
          Keys call the Fusion REST APIs with <code>Authorization: Bearer &lt;API_KEY&gt;</code>. Keep them
          out of source control and client-side code; roll a leaked key at once.
        </p>
        ${keyTable(view, keys)}
      </section>`,
      html`<section aria-labelledby="create-title">
        <h2 id="create-title">Create a key</h2>
        ${createForm(view, opts.draft)}
      </section>`,
    ],
    opts,
  );
}

export function rollKeyPage(view: SettingsView, key: ApiKeyView, m: Messages = {}): SafeHtml {
  return settingsPage(
    view,
    SETTINGS_PATHS.apiKeys,
    `Roll key ${key.name}`,
    [
      html`<section>
        <p>
          Rolling makes a new secret for <strong>${key.name}</strong> (<code>${key.prefix}</code>) with the
          same name and scopes. The new secret works at once and is shown once.
        </p>
        <form method="post" action="${SETTINGS_PATHS.apiKeys}/${key.id}/roll">
          ${formFields(view)}
          <label for="overlap">The old secret stops working</label>
          <select id="overlap" name="overlap">
            ${ROLL_OVERLAPS.map(
              (o) =>
                html`<option value="${o.seconds}" ${o.seconds === 86_400 ? html`selected` : ''}>
                  ${o.label}
                </option>`,
            )}
          </select>
          <button class="primary" type="submit">Roll key</button>
          <a class="button" href="${teamUrl(SETTINGS_PATHS.apiKeys, view.team.id)}">Cancel</a>
        </form>
      </section>`,
    ],
    m,
  );
}

export function revokeKeyPage(view: SettingsView, key: ApiKeyView, m: Messages = {}): SafeHtml {
  return confirmPage(
    view,
    SETTINGS_PATHS.apiKeys,
    `Revoke key ${key.name}?`,
    html`Programs using <strong>${key.name}</strong> (<code>${key.prefix}</code>) get 401 from their next
      request. This cannot be undone.`,
    `${SETTINGS_PATHS.apiKeys}/${key.id}/revoke`,
    'Revoke key',
    m,
  );
}
