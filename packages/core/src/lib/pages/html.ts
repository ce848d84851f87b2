/**
 * HTML escaped by construction: `html` is a tagged template whose interpolations are escaped
 * unless they are themselves `html` results (or arrays of them). There is no other way to put
 * text into a page, so a provider name or an error value cannot inject markup.
 */
export class SafeHtml {
  constructor(readonly value: string) {}
  toString(): string {
    return this.value;
  }
}

const entities: Record<string, string> = {
  "&": "&amp;",
  "<": "&lt;",
  ">": "&gt;",
  '"': "&quot;",
  "'": "&#39;",
  "`": "&#96;",
};

function escapeHtml(text: string): string {
  return text.replace(/[&<>"'`]/g, (c) => entities[c] ?? c);
}

type Value = SafeHtml | string | number | boolean | null | undefined | Value[];

function render(value: Value): string {
  if (value === null || value === undefined || value === false) return "";
  if (value instanceof SafeHtml) return value.value;
  if (Array.isArray(value)) return value.map(render).join("");
  return escapeHtml(String(value));
}

export function html(strings: TemplateStringsArray, ...values: Value[]): SafeHtml {
  let out = strings[0] ?? "";
  values.forEach((value, i) => {
    out += render(value) + strings[i + 1];
  });
  return new SafeHtml(out);
}

/** Keeps a CSS colour only if it is a plain colour value; anything else could break out of the style. */
export function safeColor(value: string | undefined): string | undefined {
  if (!value) return undefined;
  return /^(#[0-9a-fA-F]{3,8}|[a-zA-Z]{3,30}|(rgb|rgba|hsl|hsla)\([0-9.,%\s/]+\))$/.test(value.trim())
    ? value.trim()
    : undefined;
}

/** Keeps an image URL only if it is https, http, a same-origin path or a data: image. */
export function safeImageUrl(value: string | undefined): string | undefined {
  if (!value) return undefined;
  if (/^data:image\/(png|gif|jpeg|webp|svg\+xml)[;,]/i.test(value)) return value;
  if (value.startsWith("/") && !value.startsWith("//")) return value;
  try {
    const url = new URL(value);
    return url.protocol === "https:" || url.protocol === "http:" ? url.href : undefined;
  } catch {
    return undefined;
  }
}
