/**
 * A browser as the dashboard sees one, without Chromium: a cookie jar, GETs and posted forms, redirects not followed
 * (so that each answer can be asserted on), and the form token read from the page as a browser's form would send it.
 */
export class DashboardBrowser {
  readonly cookies = new Map<string, string>();

  constructor(readonly baseUrl: string) {}

  async get(path: string): Promise<Page> {
    return this.request('GET', path);
  }

  /** Posts a form; `_form` is the token of the last page seen, unless the fields give their own (or `null`: none). */
  async post(path: string, fields: Record<string, string | null>): Promise<Page> {
    const form = new URLSearchParams();
    const token = fields._form === undefined ? this.lastFormToken : fields._form;
    if (token !== null && token !== undefined) form.set('_form', token);
    for (const [name, value] of Object.entries(fields)) if (name !== '_form' && value !== null) form.set(name, value);
    return this.request('POST', path, form.toString());
  }

  /** Signs in with the page's own form: the sign-in page first, then its form posted. */
  async signIn(email: string, password: string, next?: string): Promise<Page> {
    await this.get(`/dashboard/sign-in${next === undefined ? '' : `?next=${encodeURIComponent(next)}`}`);
    return this.post('/dashboard/sign-in', { email, password, ...(next !== undefined && { next }) });
  }

  lastFormToken: string | undefined;

  private async request(method: string, path: string, body?: string): Promise<Page> {
    const cookie = [...this.cookies].map(([name, value]) => `${name}=${value}`).join('; ');
    const response = await fetch(new URL(path, this.baseUrl), {
      method,
      redirect: 'manual',
      headers: {
        ...(cookie && { cookie }),
        ...(body !== undefined && { 'content-type': 'application/x-www-form-urlencoded' }),
      },
      ...(body !== undefined && { body }),
    });
    const setCookies = response.headers.getSetCookie();
    for (const line of setCookies) {
      const [pair, ...attributes] = line.split(';');
      const at = pair!.indexOf('=');
      const name = pair!.slice(0, at).trim();
      const value = pair!.slice(at + 1).trim();
      if (attributes.some((attribute) => /^\s*max-age=0\s*$/i.test(attribute)) || value === '')
        this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
    const html = await response.text();
    const token = /name="_form" value="([^"]+)"/.exec(html)?.[1];
    if (token !== undefined) this.lastFormToken = token;
    return {
      status: response.status,
      location: response.headers.get('location'),
      html,
      setCookies,
      headers: response.headers,
    };
  }
}

export interface Page {
  status: number;
  location: string | null;
  html: string;
  setCookies: string[];
  headers: Headers;
}

/** The text of the elements with this data-testid: tags stripped (a tag reads as a space), spaces collapsed. */
export function byTestId(html: string, testId: string): string[] {
  const found: string[] = [];
  const pattern = new RegExp(`<(\\w+)[^>]*data-testid="${testId}"[^>]*>([\\s\\S]*?)</\\1>`, 'g');
  for (const match of html.matchAll(pattern))
    found.push(
      match[2]!
        .replace(/<[^>]+>/g, ' ')
        .replace(/\s+/g, ' ')
        .trim(),
    );
  return found;
}
