// Latchkey's hook: the actions under /auth and `event.locals.auth()`. The configuration is the
// demo's (made by `startDemo`), so it is given as a function of the request.
import { SvelteKitAuth } from "@latchkey/sveltekit";
import { demoOf } from "$lib/server/demo";

export const { handle, signIn, signOut } = SvelteKitAuth((event) => demoOf(event).config);
