import type { PublicProvider, ResponseInternal } from "../../shapes/data.js";
import type { Context } from "../serve/context.js";

/** `GET /providers`: the client-safe description of each provider, keyed by id. */
export function providers(ctx: Context): ResponseInternal {
  const body: Record<string, PublicProvider> = {};
  for (const p of ctx.config.providers) {
    body[p.id] = {
      id: p.id,
      name: p.name,
      type: p.type,
      signinUrl: `${ctx.authUrl}/signin/${p.id}`,
      callbackUrl: `${ctx.authUrl}/callback/${p.id}`,
    };
  }
  return { headers: { "Content-Type": "application/json" }, body: body as unknown as Record<string, unknown> };
}
