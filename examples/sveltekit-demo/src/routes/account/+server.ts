// The session of a signed-in user, as JSON.
import { esc } from "@latchkey/express-demo/pages";
import { page } from "$lib/server/demo";
import { signedIn } from "$lib/server/guard";
import type { RequestHandler } from "./$types";

export const GET: RequestHandler = async (event) =>
  page(event, "Session", `<pre id="session">${esc(JSON.stringify(await signedIn(event), null, 2))}</pre>`);
