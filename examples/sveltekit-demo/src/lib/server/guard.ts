import type { Session } from "@latchkey/sveltekit";
import { type RequestEvent, redirect } from "@sveltejs/kit";

/** The session of a signed-in user; without one, off to sign in and back here after. */
export async function signedIn(event: RequestEvent): Promise<Session> {
  const session = await event.locals.auth();
  if (session?.user) return session;
  redirect(303, `/auth/signin?callbackUrl=${encodeURIComponent(event.url.pathname + event.url.search)}`);
}
