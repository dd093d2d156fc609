import {
  DOCUMENT_INTELLIGENCE_PLANS,
  FUSION_PLANS,
  PAST_DUE_GRACE_DAYS,
  connectorObstacle,
  standingProblem,
} from '../auth/entitlements.js';
import type { TeamView } from '../auth/viewer.js';
import { html, type SafeHtml } from '../users/html.js';
import { ROLE_PERMISSIONS, type SettingsAction } from '../credentials/credentials.access.js';
import { ROLES } from '../enums.js';
import {
  SETTINGS_PATHS,
  settingsPage,
  teamUrl,
  type Messages,
  type SettingsView,
} from './settings.layout.js';

const DAY_MS = 24 * 60 * 60 * 1000;

/** What the subscription's status means for access today, in words for the team's owner. */
export function standingText(team: TeamView, now: Date): string {
  const problem = standingProblem(team, now);
  const stopped =
    'The Fusion APIs answer 403 upgrade_required, the Document Intelligence tools return a permission error and connected AI clients are refused. Keys and tokens are kept and work again as soon as the subscription is in good standing.';
  switch (team.subscriptionStatus) {
    case 'active':
      return 'In good standing: everything the plan includes works.';
    case 'trialing':
      return 'On trial: everything the plan includes works during the trial.';
    case 'past_due': {
      const since = team.pastDueSince ?? now;
      const until = new Date(since.getTime() + PAST_DUE_GRACE_DAYS * DAY_MS);
      const day = (d: Date) => d.toISOString().slice(0, 10);
      return problem
        ? `A payment has been due since ${day(since)} and the ${PAST_DUE_GRACE_DAYS}-day grace period has ended. ${stopped}`
        : `A payment has been due since ${day(since)}. Everything keeps working during a ${PAST_DUE_GRACE_DAYS}-day grace period, until ${day(until)}; after that access stops until the payment succeeds.`;
    }
    case 'unpaid':
      return `Unpaid: access has stopped. ${stopped}`;
    case 'canceled':
      return `Canceled: the subscription has ended and access has stopped. ${stopped}`;
  }
}

function planFacts(team: TeamView, now: Date): SafeHtml {
  const fusion = FUSION_PLANS.includes(team.plan);
  const di = DOCUMENT_INTELLIGENCE_PLANS.includes(team.plan);
  const connector = connectorObstacle(team, now);
  return html`<dl class="facts">
    <dt>Fusion APIs (Building Link, Floor Plan Match)</dt>
    <dd>
      ${fusion ? 'Included: keys may carry the Fusion scopes' : 'Not included: needs a Pro or Elite plan'}
    </dd>
    <dt>Document Intelligence tools</dt>
    <dd>
      ${
        di
          ? team.plan === 'elite'
            ? 'Latest and historical documents'
            : 'Latest documents'
          : 'Not included: needs a Pro or Elite plan'
      }
    </dd>
    <dt>AI-client connector</dt>
    <dd>${connector === null ? 'Available' : `Not available: ${connector}`}</dd>
  </dl>`;
}

const ACTION_WORDS: Record<SettingsAction, string> = {
  view: 'See the team, its keys, tokens, connected clients and usage',
  'manage-keys': 'Create, roll and revoke API keys',
  'manage-own-tokens': 'Create MCP access tokens, revoke your own and disconnect your own AI clients',
  'manage-team-tokens': "Revoke any member's tokens and disconnect any member's AI clients",
};

function rolesTable(view: SettingsView): SafeHtml {
  const actions = Object.keys(ACTION_WORDS) as SettingsAction[];
  return html`<section aria-labelledby="roles-title">
    <h2 id="roles-title">Who may do what</h2>
    <p>You are <strong>${view.role}</strong> of this team. Every action is checked again on the server.</p>
    <div class="table-wrap">
      <table>
        <thead>
          <tr>
            <th scope="col">Action</th>
            ${ROLES.map((r) => html`<th scope="col">${r}</th>`)}
          </tr>
        </thead>
        <tbody>
          ${actions.map(
            (a) =>
              html`<tr>
                <th scope="row">${ACTION_WORDS[a]}</th>
                ${ROLES.map((r) => html`<td>${ROLE_PERMISSIONS[r].includes(a) ? 'yes' : 'no'}</td>`)}
              </tr>`,
          )}
        </tbody>
      </table>
    </div>
  </section>`;
}

export function overviewPage(view: SettingsView, m: Messages = {}): SafeHtml {
  const { team, now } = view;
  const problem = standingProblem(team, now);
  return settingsPage(
    view,
    SETTINGS_PATHS.overview,
    'Team settings',
    [
      html`<section aria-labelledby="team-title">
        <h2 id="team-title">Subscription</h2>
        <dl class="facts">
          <dt>Team</dt>
          <dd>${team.name}</dd>
          <dt>Plan</dt>
          <dd>${team.plan}</dd>
          <dt>Agent tier</dt>
          <dd>${team.agentTier}</dd>
          <dt>Subscription</dt>
          <dd>
            <strong class="${problem ? 'status-revoked' : 'status-active'}"
              >${team.subscriptionStatus}</strong
            >
          </dd>
        </dl>
        <p ${problem ? html`class="error" role="alert"` : ''}>${standingText(team, now)}</p>
      </section>`,
      html`<section aria-labelledby="plan-title">
        <h2 id="plan-title">What the plan includes</h2>
        ${planFacts(team, now)}
      </section>`,
      html`<section aria-labelledby="next-title">
        <h2 id="next-title">Where to go</h2>
        <ul>
          <li>
            <a href="${teamUrl(SETTINGS_PATHS.apiKeys, team.id)}">API keys</a>: keys for the Fusion REST APIs.
          </li>
          <li>
            <a href="${teamUrl(SETTINGS_PATHS.api, team.id)}">API settings</a>: MCP access tokens and
            connected AI clients.
          </li>
          <li><a href="${teamUrl(SETTINGS_PATHS.usage, team.id)}">Usage</a>: requests per key and token.</li>
        </ul>
      </section>`,
      rolesTable(view),
    ],
    m,
  );
}
