import type { TeamView, UserView } from '../auth/viewer.js';
import type { Role } from '../enums.js';
import { html, page, type SafeHtml } from '../users/html.js';
import type { TeamMembership } from '../users/user.service.js';
import type { SettingsForm } from './settings.forms.js';

/** The settings pages' paths. */
export const SETTINGS_PATHS = {
  overview: '/settings',
  apiKeys: '/settings/api-keys',
  api: '/settings/api',
  usage: '/settings/usage',
  webhooks: '/settings/webhooks',
  copyScript: '/settings/assets/copy.js',
} as const;

/** What every settings page knows about who is looking, for which team. */
export interface SettingsView {
  team: TeamView;
  role: Role;
  user: UserView;
  /** How many teams the person belongs to (a team switch is offered when several). */
  teamCount: number;
  /** A fresh one-time form for each form the page renders. */
  form(): SettingsForm;
  logoutToken: string;
  baseUrl: string;
  now: Date;
}

/** A settings path for the team: every link carries the team, as a person may belong to several. */
export function teamUrl(path: string, teamId: number, extra: Record<string, string> = {}): string {
  const query = new URLSearchParams({ team: String(teamId), ...extra });
  return `${path}?${query.toString()}`;
}

const STYLE = `
main.wide{max-width:64rem;margin:2rem auto}
header.bar{display:flex;flex-wrap:wrap;gap:.4rem 1.5rem;align-items:baseline;border-bottom:1px solid #d5d9e0;padding-bottom:.6rem;margin-bottom:1.2rem}
header.bar nav{display:flex;flex-wrap:wrap;gap:.2rem 1rem}
nav a{color:#2454d6;padding:.2rem 0}nav a[aria-current=page]{font-weight:600;color:#1d2330;text-decoration:none;border-bottom:2px solid #2454d6}
section{margin:1.6rem 0}h2{font-size:1.1rem;margin:0 0 .6rem}
.table-wrap{overflow-x:auto}table{border-collapse:collapse;width:100%;font-size:.92rem}
th,td{text-align:left;padding:.45rem .5rem;border-bottom:1px solid #e3e6eb;vertical-align:top}th{font-weight:600;color:#3b4352}
code{font:.92em ui-monospace,SFMono-Regular,Menlo,monospace;background:#f0f2f5;padding:.05rem .25rem;border-radius:4px}
.secret{background:#eef6ee;border:1px solid #8fc79a;padding:.8rem 1rem;border-radius:8px}
.secret code.block{display:block;word-break:break-all;font-size:1rem;margin:.5rem 0;padding:.5rem;background:#fff}
.notice{background:#e8f0fe;border:1px solid #a8c1f5;padding:.6rem;border-radius:6px}
input[type=text],input[type=date],select{width:100%;max-width:26rem;padding:.5rem;box-sizing:border-box;font:inherit;border:1px solid #9aa3b0;border-radius:6px}
.checks label{display:flex;gap:.5rem;align-items:flex-start;margin:.3rem 0}.checks input{margin-top:.3rem}
.checks .disabled{color:#8a919c}
.status-active{color:#17692b;font-weight:600}.status-revoked,.status-expired{color:#8a919c}.status-failing{color:#b42318;font-weight:600}
.delivery-delivered{color:#17692b}.delivery-failed{color:#b42318;font-weight:600}
form.inline{display:inline;margin:0}form.inline button{margin:0;padding:.1rem .6rem}
dl.facts{display:grid;grid-template-columns:max-content 1fr;gap:.35rem 1.2rem;margin:0}dl.facts dt{font-weight:600}dl.facts dd{margin:0}
.actions{display:flex;flex-wrap:wrap;gap:.3rem .8rem}.actions a{white-space:nowrap}
button.danger{background:#b42318;border-color:#b42318;color:#fff}
a.button{display:inline-block;padding:.5rem 1.2rem;border:1px solid #999;border-radius:6px;text-decoration:none;color:inherit;margin:1rem .5rem 0 0}
footer{margin-top:2rem;border-top:1px solid #d5d9e0;padding-top:.6rem}footer form{display:inline}footer button{margin:0 0 0 .4rem;padding:.2rem .7rem}
svg.chart{max-width:100%;height:auto}
:focus-visible{outline:3px solid #2454d6;outline-offset:2px}
@media (max-width:40rem){main.wide{margin:0;border-radius:0;padding:1rem}
dl.facts{grid-template-columns:1fr;gap:.1rem}dl.facts dd{margin-bottom:.5rem}
table.stack thead{position:absolute;left:-9999px}table.stack tr{display:block;border-bottom:1px solid #d5d9e0;padding:.4rem 0}
table.stack td{display:grid;grid-template-columns:7.5rem 1fr;gap:.5rem;border:0;padding:.2rem 0}
table.stack td::before{content:attr(data-label);font-weight:600;color:#3b4352}}`;

const NAV: { path: string; label: string }[] = [
  { path: SETTINGS_PATHS.overview, label: 'Overview' },
  { path: SETTINGS_PATHS.apiKeys, label: 'API keys' },
  { path: SETTINGS_PATHS.api, label: 'API settings' },
  { path: SETTINGS_PATHS.usage, label: 'Usage' },
  { path: SETTINGS_PATHS.webhooks, label: 'Webhooks' },
];

export function formTime(date: Date | null, empty = 'never'): SafeHtml {
  if (!date) return html`<span class="muted">${empty}</span>`;
  const iso = date.toISOString();
  return html`<time datetime="${iso}">${iso.slice(0, 16).replace('T', ' ')} UTC</time>`;
}

/** The one-time id and token every settings form posts, with the team it acts for. */
export function formFields(view: SettingsView): SafeHtml {
  const form = view.form();
  return html`<input type="hidden" name="team" value="${view.team.id}" />
    <input type="hidden" name="nonce" value="${form.nonce}" />
    <input type="hidden" name="token" value="${form.token}" />`;
}

export interface Messages {
  /** Something done, said once at the top of the page. */
  notice?: string;
  /** Why nothing was changed. */
  error?: string;
}

export function messages(m: Messages): SafeHtml {
  return html`${m.error ? html`<p class="error" role="alert">${m.error}</p>` : ''}
  ${m.notice ? html`<p class="notice" role="status">${m.notice}</p>` : ''}`;
}

/**
 * A settings page: the navigation, a title, then the page's sections in order. Sections are plain
 * markup, so a feature adds one by adding a renderer to its page's list.
 */
export function settingsPage(
  view: SettingsView,
  active: string,
  title: string,
  sections: readonly SafeHtml[],
  m: Messages = {},
): SafeHtml {
  return page(
    `${title} · ${view.team.name}`,
    html`<header class="bar">
        <strong>${view.team.name}</strong>
        <nav aria-label="Team settings">
          ${NAV.map(
            (n) =>
              html`<a
                href="${teamUrl(n.path, view.team.id)}"
                ${n.path === active ? html`aria-current="page"` : ''}
                >${n.label}</a
              >`,
          )}
        </nav>
      </header>
      <h1>${title}</h1>
      ${messages(m)} ${sections}
      <footer class="muted">
        Signed in as ${view.user.email} (${view.role} of ${view.team.name}).
        ${view.teamCount > 1 ? html`<a href="${SETTINGS_PATHS.overview}">Switch team</a>` : ''}
        <form method="post" action="/logout">
          <input type="hidden" name="token" value="${view.logoutToken}" />
          <button type="submit">Sign out</button>
        </form>
      </footer>`,
    { wide: true, style: STYLE, scripts: [SETTINGS_PATHS.copyScript] },
  );
}

/**
 * A secret shown once, with the copy button the static script reveals (the text stays selectable
 * without it). `hashed`: only its hash is kept (keys and tokens; a webhook's signing secret is kept
 * to sign with, and its `extra` says so).
 */
export function secretBox(title: string, secret: string, extra?: SafeHtml, hashed = true): SafeHtml {
  return html`<section class="secret" aria-labelledby="secret-title">
    <h2 id="secret-title">${title}</h2>
    <p><strong>Store it now, it will not be shown again.</strong>${hashed ? ' Only a hash is kept.' : ''}</p>
    <code class="block" id="new-secret">${secret}</code>
    <button type="button" class="primary" data-copy="new-secret" hidden>Copy</button>
    <span class="muted" role="status" data-copy-status="new-secret"></span>
    ${extra ?? ''}
  </section>`;
}

/** The team picker for a person in several teams (or after naming a team that is not theirs). */
export function teamPickerPage(
  email: string,
  memberships: readonly TeamMembership[],
  logoutToken: string,
  error?: string,
): SafeHtml {
  return page(
    'Choose a team',
    html`<h1>Choose a team</h1>
      ${messages({ error })}
      <p>You are a member of several teams. Whose settings do you want to see?</p>
      <ul>
        ${memberships.map(
          (m) =>
            html`<li>
              <a href="${teamUrl(SETTINGS_PATHS.overview, m.team.id)}">${m.team.name}</a>
              <span class="muted">(${m.role}, ${m.team.plan})</span>
            </li>`,
        )}
      </ul>
      <form method="post" action="/logout">
        <input type="hidden" name="token" value="${logoutToken}" />
        <p class="muted">Signed in as ${email}. <button type="submit">Sign out</button></p>
      </form>`,
    { style: STYLE },
  );
}

/** A page that asks before an action that cannot be undone; Cancel goes back to `active`. */
export function confirmPage(
  view: SettingsView,
  active: string,
  title: string,
  text: SafeHtml,
  action: string,
  button: string,
  m: Messages,
): SafeHtml {
  return settingsPage(
    view,
    active,
    title,
    [
      html`<section>
        <p>${text}</p>
        <form method="post" action="${action}">
          ${formFields(view)}
          <button class="danger" type="submit">${button}</button>
          <a class="button" href="${teamUrl(active, view.team.id)}">Cancel</a>
        </form>
      </section>`,
    ],
    m,
  );
}
