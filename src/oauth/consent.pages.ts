import type { TeamMembership } from '../users/user.service.js';
import { html, page, type SafeHtml } from '../users/html.js';
import { isConnectorEligible } from '../auth/entitlements.js';
import { redirectHost, type PendingAuthorization } from './grant.service.js';
import { isMetadataDocumentClientId } from './client-metadata-document.js';

interface ConsentView {
  pending: PendingAuthorization;
  email: string;
  memberships: TeamMembership[];
  formToken: string;
  logoutToken: string;
  error?: string;
}

function teamChoice(m: TeamMembership, checked: boolean): SafeHtml {
  const eligible = isConnectorEligible(m.team);
  return html`<div class="team ${eligible ? '' : 'disabled'}">
    <label>
      <input
        type="radio"
        name="team"
        value="${m.team.id}"
        ${eligible ? '' : html`disabled`}
        ${checked ? html`checked` : ''}
      />
      <span
        >${m.team.name}
        ${eligible ? '' : html`<span class="muted note">Needs an active Agent or Enterprise subscription</span>`}</span
      >
    </label>
  </div>`;
}

function signOut(view: ConsentView): SafeHtml {
  return html`<form method="post" action="/logout">
    <input type="hidden" name="token" value="${view.logoutToken}" />
    <p class="muted">Signed in as ${view.email}. <button type="submit">Use another account</button></p>
  </form>`;
}

/** Names the client and the team the connection will act for; only eligible teams can be chosen. */
export function consentPage(view: ConsentView): SafeHtml {
  const eligible = view.memberships.filter((m) => isConnectorEligible(m.team));
  return page(
    'Connect',
    html`<h1>Connect ${view.pending.clientName} to Property Data Service</h1>
      ${view.error ? html`<p class="error" role="alert">${view.error}</p>` : ''}
      <p>
        <strong>${view.pending.clientName}</strong> wants to use the Property Data Service tools (search
        project documents and listings) on your behalf. After you allow it you will be sent back to
        <strong>${redirectHost(view.pending.redirectUri)}</strong>.
      </p>
      ${
        isMetadataDocumentClientId(view.pending.clientId)
          ? html`<p class="muted">
              It describes itself in a document published at
              <strong>${new URL(view.pending.clientId).host}</strong>.
            </p>`
          : ''
      }
      <form method="post" action="/oauth/consent">
        <input type="hidden" name="request" value="${view.pending.id}" />
        <input type="hidden" name="token" value="${view.formToken}" />
        <fieldset>
          <legend>Team the connection acts for</legend>
          ${view.memberships.map((m) => teamChoice(m, eligible.length === 1 && eligible[0] === m))}
        </fieldset>
        <button class="primary" type="submit" name="decision" value="allow">Allow</button>
        <button type="submit" name="decision" value="deny">Deny</button>
      </form>
      ${signOut(view)}`,
  );
}

/** No team can use the connector: say why, and let the user send a refusal back to the client. */
export function refusalPage(view: ConsentView): SafeHtml {
  const reason = view.memberships.length
    ? 'Connecting an AI client needs an active Agent or Enterprise subscription, and none of your teams has one. Ask a team owner to subscribe, then connect again.'
    : 'Your account is not a member of any team. Ask a team owner to add you, then connect again.';
  return page(
    'Cannot connect',
    html`<h1>${view.pending.clientName} cannot be connected</h1>
      <p class="error" role="alert">${reason}</p>
      <form method="post" action="/oauth/consent">
        <input type="hidden" name="request" value="${view.pending.id}" />
        <input type="hidden" name="token" value="${view.formToken}" />
        <button type="submit" name="decision" value="deny">Return to ${view.pending.clientName}</button>
      </form>
      ${signOut(view)}`,
  );
}
