// A public page that shows who is signed in, and how.
import { type DemoSession, homeBody } from "@latchkey/express-demo/pages";
import { page } from "$lib/server/demo";
import type { RequestHandler } from "./$types";

export const GET: RequestHandler = async (event) =>
  page(event, "Latchkey demo", homeBody((await event.locals.auth()) as DemoSession | null));
