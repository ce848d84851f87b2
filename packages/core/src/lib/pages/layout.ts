import type { ResponseInternal, Theme } from "../../shapes/data.js";
import { html, SafeHtml, safeColor, safeImageUrl } from "./html.js";
import { css } from "./styles.js";

/**
 * Headers of every built-in page: no caching, no framing (clickjacking), no resources from other
 * origins except images, scripts only from Latchkey's own routes, and no `Referer` to other
 * origins. `same-origin` rather than `no-referrer`: under `no-referrer` a browser posts the pages'
 * forms with `Origin: null`, which frameworks checking the origin of form posts refuse (SvelteKit).
 */
const pageHeaders = {
  "Content-Type": "text/html; charset=utf-8",
  "Cache-Control": "private, no-cache, no-store",
  "Content-Security-Policy":
    "default-src 'none'; img-src 'self' data: https:; style-src 'unsafe-inline'; script-src 'self'; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'",
  "X-Frame-Options": "DENY",
  "Referrer-Policy": "same-origin",
  "X-Content-Type-Options": "nosniff",
};

// The stylesheet is trusted, constant text: wrapped once, not escaped.
const styleSheet = new SafeHtml(css);

/** Wraps a page's content in the document, themed; returns the action's response. */
export function page(options: {
  title: string;
  theme: Theme;
  content: SafeHtml;
  status?: number;
  cookies?: ResponseInternal["cookies"];
  head?: SafeHtml;
}): ResponseInternal {
  const { title, theme, content, status = 200, cookies } = options;
  const scheme = theme.colorScheme === "dark" || theme.colorScheme === "light" ? theme.colorScheme : "auto";
  const brand = safeColor(theme.brandColor);
  const buttonText = safeColor(theme.buttonText);
  const logo = safeImageUrl(theme.logo);
  const vars = [brand ? `--brand:${brand}` : "", buttonText ? `--brand-text:${buttonText}` : ""]
    .filter(Boolean)
    .join(";");
  const body = html`<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><meta name="robots" content="noindex"><title>${title}</title><style>${styleSheet}</style>${options.head}</head>
<body class="theme-${scheme}"${vars ? html` style="${vars}"` : ""}><main class="page">${logo ? html`<img class="logo" src="${logo}" alt="">` : ""}${content}</main></body></html>`;
  return { status, headers: { ...pageHeaders }, body: body.value, cookies };
}
