// For signed-in users only.
import { type DemoSession, protectedBody } from "@latchkey/express-demo/pages";
import { page } from "$lib/server/demo";
import { signedIn } from "$lib/server/guard";
import type { RequestHandler } from "./$types";

export const GET: RequestHandler = async (event) =>
  page(event, "Protected page", protectedBody((await signedIn(event)) as DemoSession));
