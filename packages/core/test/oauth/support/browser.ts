/**
 * A small browser for the flow tests: one cookie jar per host, redirects followed by hand, and
 * requests to the application either over the network or handed to `Auth` in process.
 */

/** Sends a request to the application in process (e.g. `(r) => Auth(r, config)`). */
export type Sender = (request: Request) => Promise<Response>;

export class Browser {
  readonly jars = new Map<string, Map<string, string>>();

  /** `local` maps an application origin to the function that answers its requests in process. */
  constructor(private readonly local: Record<string, Sender> = {}) {}

  /** The cookie jar of a host (`hostname:port`). */
  jar(hostOrUrl: string): Map<string, string> {
    const host = hostOrUrl.includes("://") ? new URL(hostOrUrl).host : hostOrUrl;
    let jar = this.jars.get(host);
    if (!jar) {
      jar = new Map();
      this.jars.set(host, jar);
    }
    return jar;
  }

  /** One request without following redirects; the response's cookies go to the host's jar. */
  async request(url: string, init: RequestInit = {}): Promise<Response> {
    const target = new URL(url);
    const headers = new Headers(init.headers);
    const jar = this.jar(target.host);
    if (jar.size && !headers.has("cookie")) headers.set("cookie", [...jar].map(([k, v]) => `${k}=${v}`).join("; "));
    const request = new Request(target, { ...init, headers, redirect: "manual" });
    const send = this.local[target.origin];
    const response = send ? await send(request) : await fetch(request);
    for (const header of response.headers.getSetCookie()) {
      const [pair = "", ...attributes] = header.split(";");
      const eq = pair.indexOf("=");
      const name = pair.slice(0, eq).trim();
      const value = pair.slice(eq + 1).trim();
      const expired =
        attributes.some((a) => /^\s*max-age=(0|-\d+)\s*$/i.test(a)) ||
        attributes.some((a) => /^\s*expires=Thu, 01 Jan 1970/i.test(a));
      if (expired || value === "") jar.delete(name);
      else jar.set(name, value);
    }
    return response;
  }

  get(url: string, headers?: Record<string, string>): Promise<Response> {
    return this.request(url, { headers });
  }

  post(url: string, form: Record<string, string>, headers?: Record<string, string>): Promise<Response> {
    return this.request(url, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", ...headers },
      body: new URLSearchParams(form).toString(),
    });
  }

  /**
   * Follows redirects from `url` until one points where `stop` says; returns that URL unvisited.
   * A page with an auto-submitting form (response_mode=form_post) is returned as `form`.
   */
  async follow(
    url: string,
    stop: (url: string) => boolean,
    max = 20,
  ): Promise<{ url: string; form?: Record<string, string> }> {
    let current = url;
    for (let i = 0; i < max; i++) {
      const response = await this.get(current);
      const location = response.headers.get("location");
      if (!location) {
        const text = await response.text();
        const form = parseForm(text);
        if (form && stop(form.action)) return { url: form.action, form: form.fields };
        throw new Error(`No redirect from ${current} (HTTP ${response.status}): ${text.slice(0, 500)}`);
      }
      const next = new URL(location, current).href;
      if (stop(next)) return { url: next };
      current = next;
    }
    throw new Error(`Too many redirects from ${url}`);
  }
}

/** The action and hidden fields of the first form of an HTML page. */
function parseForm(html: string): { action: string; fields: Record<string, string> } | undefined {
  const form = /<form[^>]*action="([^"]+)"/i.exec(html);
  if (!form?.[1]) return undefined;
  const fields: Record<string, string> = {};
  for (const match of html.matchAll(/<input[^>]*>/gi)) {
    const name = /name="([^"]*)"/i.exec(match[0])?.[1];
    const value = /value="([^"]*)"/i.exec(match[0])?.[1];
    if (name) fields[name] = decodeEntities(value ?? "");
  }
  return { action: decodeEntities(form[1]), fields };
}

function decodeEntities(text: string): string {
  return text
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&#x2F;/gi, "/")
    .replace(/&lt;/g, "<")
    .replace(/&gt;/g, ">")
    .replace(/&amp;/g, "&");
}
