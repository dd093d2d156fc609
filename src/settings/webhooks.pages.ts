import { CHANGE_TYPES } from '../changes/changes.service.js';
import { html, type SafeHtml } from '../users/html.js';
import type { WebhookDeliveryView, WebhookEndpointView } from '../webhooks/webhooks.service.js';
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

/** The form value that stands for every event type (the services' empty list). */
export const EVERY_TYPE = '*';

/** What a person typed, put back in the form when it was refused. */
export interface EndpointDraft {
  url: string;
  types: string[];
}

/** What the webhooks page can show: the endpoints, or why the person may not see them. */
export type WebhookList = { endpoints: readonly WebhookEndpointView[] } | { refused: string };

const time = (iso: string | null, empty = 'never') => formTime(iso ? new Date(iso) : null, empty);

export const endpointPath = (id: number, action = '') =>
  `${SETTINGS_PATHS.webhooks}/${id}${action ? `/${action}` : ''}`;

function typesText(types: readonly string[]): SafeHtml {
  return types.length ? html`${types.join(', ')}` : html`<span class="muted">every type</span>`;
}

function endpointStatus(e: WebhookEndpointView): SafeHtml {
  if (!e.enabled) {
    return html`<span class="status-expired">disabled</span>
      <span class="muted">${e.disabledReason ?? ''}</span>`;
  }
  if (e.failingSince) {
    return html`<span class="status-failing">failing</span>
      <span class="muted">since ${time(e.failingSince)}</span>`;
  }
  return html`<span class="status-active">enabled</span>`;
}

/** A small form with one button (enable, disable, redeliver): a fresh one-time id each. */
function actionForm(
  view: SettingsView,
  action: string,
  label: string,
  aria: string,
  extra?: SafeHtml,
): SafeHtml {
  return html`<form method="post" action="${action}" class="inline">
    ${formFields(view)} ${extra ?? ''}
    <button type="submit" aria-label="${aria}">${label}</button>
  </form>`;
}

function endpointRow(view: SettingsView, e: WebhookEndpointView): SafeHtml {
  return html`<tr>
    <td data-label="URL"><code>${e.url}</code></td>
    <td data-label="Event types">${typesText(e.eventTypes)}</td>
    <td data-label="Status">${endpointStatus(e)}</td>
    <td data-label="Created">${time(e.createdAt)}</td>
    <td data-label="Actions">
      <span class="actions"
        ><a href="${teamUrl(endpointPath(e.id), view.team.id)}" aria-label="Deliveries of ${e.url}"
          >Deliveries</a
        >
        ${
          e.enabled
            ? actionForm(view, endpointPath(e.id, 'disable'), 'Disable', `Disable ${e.url}`)
            : actionForm(view, endpointPath(e.id, 'enable'), 'Enable', `Enable ${e.url}`)
        }
        <a href="${teamUrl(endpointPath(e.id, 'delete'), view.team.id)}" aria-label="Delete ${e.url}"
          >Delete</a
        ></span
      >
    </td>
  </tr>`;
}

function endpointTable(view: SettingsView, endpoints: readonly WebhookEndpointView[]): SafeHtml {
  if (!endpoints.length) return html`<p class="muted">The team has no webhook endpoints yet.</p>`;
  return html`<div class="table-wrap">
    <table class="stack">
      <thead>
        <tr>
          <th scope="col">URL</th>
          <th scope="col">Event types</th>
          <th scope="col">Status</th>
          <th scope="col">Created</th>
          <th scope="col"><span class="muted">Actions</span></th>
        </tr>
      </thead>
      <tbody>
        ${endpoints.map((e) => endpointRow(view, e))}
      </tbody>
    </table>
  </div>`;
}

function registerForm(view: SettingsView, draft: EndpointDraft | undefined): SafeHtml {
  const checked = (value: string) => (draft?.types.includes(value) ? html`checked` : '');
  return html`<form method="post" action="${SETTINGS_PATHS.webhooks}">
    ${formFields(view)}
    <label for="webhook-url">URL <span class="muted">(https://, a public address)</span></label>
    <input
      id="webhook-url"
      name="url"
      type="text"
      inputmode="url"
      required
      maxlength="2000"
      placeholder="https://hooks.example.com/pds"
      value="${draft?.url ?? ''}"
    />
    <fieldset class="checks">
      <legend>Event types</legend>
      <label
        ><input type="checkbox" name="types" value="${EVERY_TYPE}" ${checked(EVERY_TYPE)} /><span
          >Every event type, also ones added later</span
        ></label
      >
      ${CHANGE_TYPES.map(
        (type) =>
          html`<label
            ><input type="checkbox" name="types" value="${type}" ${checked(type)} /><code
              >${type}</code
            ></label
          >`,
      )}
    </fieldset>
    <button class="primary" type="submit">Register endpoint</button>
  </form>`;
}

function verifyHint(): SafeHtml {
  return html`<p>
    The service keeps this secret to sign every delivery (Standard Webhooks headers
    <code>webhook-id</code>, <code>webhook-timestamp</code>, <code>webhook-signature</code>); verify each
    delivery with it before trusting it.
  </p>`;
}

export function webhooksPage(
  view: SettingsView,
  list: WebhookList,
  opts: Messages & { created?: { url: string; secret: string }; draft?: EndpointDraft } = {},
): SafeHtml {
  if ('refused' in list) {
    return settingsPage(
      view,
      SETTINGS_PATHS.webhooks,
      'Webhooks',
      [
        html`<section>
          <p>${list.refused}</p>
          <p class="muted">
            Webhooks push the change feed's events (projects, buildings, floor plans, documents) to a URL of
            the team's.
          </p>
        </section>`,
      ],
      opts,
    );
  }
  return settingsPage(
    view,
    SETTINGS_PATHS.webhooks,
    'Webhooks',
    [
      opts.created
        ? secretBox(`Signing secret for ${opts.created.url}`, opts.created.secret, verifyHint(), false)
        : html``,
      html`<section aria-labelledby="endpoints-title">
        <h2 id="endpoints-title">Endpoints</h2>
        <p class="muted">
          Each event the endpoint asked for is sent as a signed POST, retried for about three days until it
          answers 2xx. An endpoint that answers 410, or fails for the whole schedule, is disabled.
        </p>
        ${endpointTable(view, list.endpoints)}
      </section>`,
      html`<section aria-labelledby="register-title">
        <h2 id="register-title">Register an endpoint</h2>
        ${registerForm(view, opts.draft)}
      </section>`,
    ],
    opts,
  );
}

function deliveryRow(view: SettingsView, endpoint: WebhookEndpointView, d: WebhookDeliveryView): SafeHtml {
  return html`<tr>
    <td data-label="Event"><code>${d.eventType}</code> <span class="muted">#${d.eventId}</span></td>
    <td data-label="Status"><span class="delivery-${d.status}">${d.status}</span></td>
    <td data-label="Attempts">${d.attempts}</td>
    <td data-label="Response">
      ${d.lastStatusCode ?? html`<span class="muted">${d.lastError ?? 'none yet'}</span>`}
    </td>
    <td data-label="Latency">
      ${d.lastLatencyMs === null ? html`<span class="muted">-</span>` : `${d.lastLatencyMs} ms`}
    </td>
    <td data-label="Last attempt">${time(d.lastAttemptAt)}</td>
    <td data-label="Next attempt">${time(d.nextAttemptAt, 'none')}</td>
    <td data-label="Actions">
      ${
        endpoint.enabled
          ? actionForm(
              view,
              endpointPath(endpoint.id, 'redeliver'),
              'Redeliver',
              `Redeliver event ${d.eventId}`,
              html`<input type="hidden" name="delivery" value="${d.id}" />`,
            )
          : ''
      }
    </td>
  </tr>`;
}

export function deliveriesPage(
  view: SettingsView,
  endpoint: WebhookEndpointView,
  deliveries: readonly WebhookDeliveryView[],
  m: Messages = {},
): SafeHtml {
  return settingsPage(
    view,
    SETTINGS_PATHS.webhooks,
    `Deliveries to ${endpoint.url}`,
    [
      html`<section aria-labelledby="endpoint-title">
        <h2 id="endpoint-title">Endpoint</h2>
        <dl class="facts">
          <dt>URL</dt>
          <dd><code>${endpoint.url}</code></dd>
          <dt>Event types</dt>
          <dd>${typesText(endpoint.eventTypes)}</dd>
          <dt>Status</dt>
          <dd>${endpointStatus(endpoint)}</dd>
        </dl>
        ${
          endpoint.enabled
            ? ''
            : html`<p>
                Enable it on the
                <a href="${teamUrl(SETTINGS_PATHS.webhooks, view.team.id)}">webhooks page</a> to redeliver.
              </p>`
        }
      </section>`,
      html`<section aria-labelledby="log-title">
        <h2 id="log-title">Delivery log</h2>
        <p class="muted">
          Newest first. Every attempt of one event carries the same <code>webhook-id</code>; a redelivery is
          sent at once.
        </p>
        ${
          deliveries.length
            ? html`<div class="table-wrap">
                <table class="stack">
                  <thead>
                    <tr>
                      <th scope="col">Event</th>
                      <th scope="col">Status</th>
                      <th scope="col">Attempts</th>
                      <th scope="col">Response</th>
                      <th scope="col">Latency</th>
                      <th scope="col">Last attempt</th>
                      <th scope="col">Next attempt</th>
                      <th scope="col"><span class="muted">Actions</span></th>
                    </tr>
                  </thead>
                  <tbody>
                    ${deliveries.map((d) => deliveryRow(view, endpoint, d))}
                  </tbody>
                </table>
              </div>`
            : html`<p class="muted">Nothing has been sent to this endpoint yet.</p>`
        }
        <p><a href="${teamUrl(SETTINGS_PATHS.webhooks, view.team.id)}">Back to the endpoints</a></p>
      </section>`,
    ],
    m,
  );
}

export function deleteEndpointPage(
  view: SettingsView,
  endpoint: WebhookEndpointView,
  m: Messages = {},
): SafeHtml {
  return confirmPage(
    view,
    SETTINGS_PATHS.webhooks,
    `Delete the endpoint ${endpoint.url}?`,
    html`Nothing more is sent to <code>${endpoint.url}</code>, and its delivery log is deleted with it. This
      cannot be undone.`,
    endpointPath(endpoint.id, 'delete'),
    'Delete endpoint',
    m,
  );
}
