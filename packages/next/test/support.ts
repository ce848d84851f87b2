/** Cookie helpers of the tests: a `Cookie` header from `Set-Cookie` values, a small jar. */

/** The cookies of `Set-Cookie` values as a `Cookie` header (deletions left out). */
export function cookieHeader(setCookies: string[]): string {
  return setCookies
    .map((c) => c.split(";")[0] as string)
    .filter((pair) => !pair.endsWith("="))
    .join("; ");
}

/** A tiny cookie jar over the Web `Response`s of the route handlers. */
export class Jar {
  readonly cookies = new Map<string, string>();
  apply(values: string[]): void {
    for (const header of values) {
      const [pair, ...attributes] = header.split(";");
      const eq = (pair as string).indexOf("=");
      const name = (pair as string).slice(0, eq).trim();
      const value = (pair as string).slice(eq + 1).trim();
      if (value === "" || attributes.some((a) => /^\s*max-age=0\s*$/i.test(a))) this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
  }
  header(): string {
    return [...this.cookies].map(([k, v]) => `${k}=${v}`).join("; ");
  }
}
