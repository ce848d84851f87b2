// The session as JSON (`event.locals.auth()`), or null.
import { json } from "@sveltejs/kit";
import type { RequestHandler } from "./$types";

export const GET: RequestHandler = async ({ locals }) => json(await locals.auth());
