// A browser's cookies for tests and scripts that speak HTTP as a browser would (no vitest here:
// scripts/check-mcp-conformance.ts uses it outside a test run).

export const SESSION_COOKIE = 'gm_session';

/** A minimal cookie jar: name=value pairs from Set-Cookie, sent back as one Cookie header. */
export class CookieJar {
  readonly cookies = new Map<string, string>();

  /** Stores the response's cookies; a cookie set to expire is removed. */
  take(response: Response): void {
    for (const line of response.headers.getSetCookie()) {
      const [pair, ...attributes] = line.split(';');
      const eq = pair!.indexOf('=');
      const name = pair!.slice(0, eq).trim();
      const value = pair!.slice(eq + 1).trim();
      const expired = attributes.some(
        (a) => /^\s*max-age=0\s*$/i.test(a) || (/^\s*expires=/i.test(a) && Date.parse(a.split('=')[1]!) < Date.now()),
      );
      if (expired || value === '') this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
  }

  header(): string {
    return [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
  }

  /** fetch without following redirects, sending and storing cookies. */
  async fetch(url: string, init: RequestInit = {}): Promise<Response> {
    const headers = new Headers(init.headers);
    if (this.cookies.size) headers.set('cookie', this.header());
    const response = await fetch(url, { ...init, headers, redirect: 'manual' });
    this.take(response);
    return response;
  }
}
