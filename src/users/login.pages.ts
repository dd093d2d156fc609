import { html, page, type SafeHtml } from './html.js';

export function loginPage(opts: { next: string; email?: string; error?: string }): SafeHtml {
  return page(
    'Sign in',
    html`<h1>Sign in to Property Data Service</h1>
      ${opts.error ? html`<p class="error" role="alert">${opts.error}</p>` : ''}
      <form method="post" action="/login">
        <input type="hidden" name="next" value="${opts.next}" />
        <label for="email">Email</label>
        <input
          id="email"
          name="email"
          type="email"
          autocomplete="username"
          required
          value="${opts.email ?? ''}"
        />
        <label for="password">Password</label>
        <input id="password" name="password" type="password" autocomplete="current-password" required />
        <button class="primary" type="submit">Sign in</button>
      </form>`,
  );
}

export function signedInPage(opts: { email: string; next: string | null; logoutToken: string }): SafeHtml {
  return page(
    'Signed in',
    html`<h1>Signed in</h1>
      <p>You are signed in as <strong>${opts.email}</strong>.</p>
      ${
        opts.next
          ? html`<p><a href="${opts.next}">Continue</a></p>`
          : html`<p>
              <a href="/settings">Team settings</a>: your team's API keys, tokens, usage and webhooks.
            </p>`
      }
      <form method="post" action="/logout">
        <input type="hidden" name="token" value="${opts.logoutToken}" />
        <button type="submit">Sign out</button>
      </form>`,
  );
}

export function messagePage(title: string, message: string, extra?: SafeHtml): SafeHtml {
  return page(
    title,
    html`<h1>${title}</h1>
      <p>${message}</p>
      ${extra ?? ''}`,
  );
}
