import type { Env } from "../config/env.js";
import type { AuthConfig } from "../config/options.js";
import { type AccountPageName, accountPageContent } from "../pages/accounts.js";
import type { SafeHtml } from "../pages/html.js";
import { page } from "../pages/layout.js";
import { sessionCookieOf } from "../serve/pipeline.js";

// ------------------------------------------------------------------ pages

/** The props of each built-in page. */
export type AccountPageProps = { [N in AccountPageName]: Parameters<(typeof accountPageContent)[N]>[0] };

/** The pages' renderers, typed per name so that a page's props reach its renderer unchecked by casts. */
const accountPageRenderers: {
  [N in AccountPageName]: (props: AccountPageProps[N]) => { title: string; content: SafeHtml };
} = accountPageContent;

/** A built-in page, ready to send: status, headers (no caching, no framing, a CSP) and HTML. */
export interface AccountPage {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/**
 * Renders one of the built-in password-account pages, themed like Latchkey's sign-in page: `signUp`,
 * `checkEmail` (the code form), `verifyLink`, `forgot`, `reset`, `change` or `done`. Every value is
 * escaped. `@latchkey/express`'s `PasswordAccounts` serves them; a custom page posts the same fields.
 *
 * @example
 * ```ts
 * const { status, headers, body } = accountPage(config, "reset", { action: "/account/reset", csrfToken, token, email, user })
 * ```
 */
export function accountPage<N extends AccountPageName>(
  config: AuthConfig,
  name: N,
  props: AccountPageProps[N],
  options: { status?: number; env?: Env } = {},
): AccountPage {
  const { resolved } = sessionCookieOf({ protocol: "http", host: "localhost", cookieHeader: null }, config, options);
  const { title, content } = accountPageRenderers[name](props);
  const response = page({ title, content, theme: resolved.theme, status: options.status ?? 200 });
  return {
    status: response.status ?? 200,
    headers: { ...response.headers },
    body: String(response.body),
  };
}
