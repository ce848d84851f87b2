// A route that reads no session: the reference the bench measures this app's Latchkey routes against.
import { json } from "@sveltejs/kit";
import type { RequestHandler } from "./$types";

export const GET: RequestHandler = () => json({ ok: true });
