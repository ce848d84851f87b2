// For signed-in users only, as JSON: without a session, off to sign in.
import { json } from "@sveltejs/kit";
import { signedIn } from "$lib/server/guard";
import type { RequestHandler } from "./$types";

export const GET: RequestHandler = async (event) => json({ email: (await signedIn(event)).user?.email });
