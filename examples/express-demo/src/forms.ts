/**
 * The pieces every form of the demo's Express pages uses: a one-button form carrying the page's
 * CSRF token, and the check that a post came from this very origin.
 */
import type { NextFunction, Request, Response } from "express";
import { esc } from "./pages.js";

/** A form of hidden fields (the CSRF token among them) and one button, posting to `action`. */
export function buttonForm(
  action: string,
  fields: Record<string, string>,
  label: string,
  csrfToken: string,
  className = "inline",
): string {
  return `<form method="post" action="${esc(action)}" class="${esc(className)}">${Object.entries({
    ...fields,
    csrfToken,
  })
    .map(([name, value]) => `<input type="hidden" name="${esc(name)}" value="${esc(value)}">`)
    .join("")}<button type="submit">${esc(label)}</button></form>`;
}

/** Rejects a post another site made (browsers say where a request came from). */
export function sameOrigin(req: Request, res: Response, next: NextFunction) {
  const site = req.get("sec-fetch-site");
  const origin = req.get("origin");
  if ((site && site !== "same-origin") || (origin && origin !== `${req.protocol}://${req.get("host")}`))
    return res.status(403).send("Cross-site request refused");
  next();
}

/** The body of the page a refused form answers: why, and the way back. */
export function refusalBody(text: string, back: string): string {
  return `<p id="refusal" class="alert" role="alert">${esc(text)}</p><p><a href="${esc(back)}">Back</a></p>`;
}
