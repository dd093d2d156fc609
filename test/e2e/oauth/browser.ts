/**
 * A minimal headless browser for the connector flow: keeps cookies, follows nothing by itself,
 * and fills the login and consent forms the way a person would.
 */
export class Browser {
  private cookies = new Map<string, string>();
  /** Every Location header seen, in order. */
  readonly visited: string[] = [];

  constructor(readonly base: string) {}

  private remember(res: Response): void {
    for (const line of res.headers.getSetCookie()) {
      const [pair, ...attrs] = line.split(';');
      const eq = pair.indexOf('=');
      const name = pair.slice(0, eq).trim();
      const value = pair.slice(eq + 1).trim();
      const expired = attrs.some(
        (a) => /^\s*expires=/i.test(a) && new Date(a.split('=')[1]).getTime() < Date.now(),
      );
      if (!value || expired) this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
  }

  cookieHeader(): string {
    return [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
  }

  cookie(name: string): string | undefined {
    return this.cookies.get(name);
  }

  async get(url: string, headers: Record<string, string> = {}): Promise<Response> {
    const res = await fetch(new URL(url, this.base), {
      redirect: 'manual',
      headers: { cookie: this.cookieHeader(), ...headers },
    });
    this.remember(res);
    return res;
  }

  async post(
    url: string,
    fields: Record<string, string>,
    headers: Record<string, string> = {},
  ): Promise<Response> {
    const res = await fetch(new URL(url, this.base), {
      method: 'POST',
      redirect: 'manual',
      headers: {
        cookie: this.cookieHeader(),
        'content-type': 'application/x-www-form-urlencoded',
        ...headers,
      },
      body: new URLSearchParams(fields).toString(),
    });
    this.remember(res);
    return res;
  }

  async login(email: string, password: string, next = '/login'): Promise<Response> {
    return this.post('/login', { email, password, next });
  }
}

export interface ConsentForm {
  request: string;
  token: string;
  /** Team ids that can be chosen (eligible teams); disabled ones are listed apart. */
  teams: string[];
  disabledTeams: string[];
  html: string;
}

export function readConsentForm(html: string): ConsentForm {
  const hidden = (name: string) => new RegExp(`name="${name}" value="([^"]*)"`).exec(html)?.[1] ?? '';
  const radios = [...html.matchAll(/<input\s+type="radio"\s+name="team"\s+value="(\d+)"([^>]*)>/g)];
  return {
    request: hidden('request'),
    token: hidden('token'),
    teams: radios.filter((m) => !m[2].includes('disabled')).map((m) => m[1]),
    disabledTeams: radios.filter((m) => m[2].includes('disabled')).map((m) => m[1]),
    html,
  };
}

export interface Person {
  email: string;
  password: string;
}

/**
 * Follows an authorization URL the way a user's browser would: the server redirects to consent,
 * consent to the login page; the user signs in, returns to consent, picks a team and allows.
 * Returns the final redirect to the client (with `code` or `error`), or the page it stopped on.
 */
export async function authorizeInBrowser(
  browser: Browser,
  authorizationUrl: string,
  person: Person,
  choose: (form: ConsentForm) => { team?: string; decision: 'allow' | 'deny' } = (form) => ({
    team: form.teams[0],
    decision: 'allow',
  }),
): Promise<{ redirect: URL | null; page: Response | null; consent: ConsentForm | null }> {
  let res = await browser.get(authorizationUrl);
  let consent: ConsentForm | null = null;
  for (let hops = 0; hops < 10; hops++) {
    const location = res.headers.get('location');
    if (res.status >= 300 && res.status < 400 && location) {
      const target = new URL(location, browser.base);
      if (target.origin !== new URL(browser.base).origin) return { redirect: target, page: null, consent };
      if (target.pathname === '/login' && !browser.cookie('pds_session')) {
        res = await browser.login(person.email, person.password, target.searchParams.get('next') ?? '/login');
        continue;
      }
      res = await browser.get(target.href);
      continue;
    }
    const html = await res.text();
    if (!html.includes('action="/oauth/consent"')) {
      return { redirect: null, page: new Response(html, { status: res.status }), consent };
    }
    consent = readConsentForm(html);
    if (res.status !== 200)
      return { redirect: null, page: new Response(html, { status: res.status }), consent };
    const choice = choose(consent);
    res = await browser.post('/oauth/consent', {
      request: consent.request,
      token: consent.token,
      decision: choice.decision,
      ...(choice.team ? { team: choice.team } : {}),
    });
  }
  throw new Error('too many redirects');
}
