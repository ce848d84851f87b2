// Signing in and out by form actions: a wrong password reaches the action as `CredentialsSignin`
// (with its `code`), another refusal (a cross-site request's `MissingCSRF`, say) as its `AuthError`,
// both shown on the page; success redirects (SvelteKit's `redirect`).
import { AuthError, CredentialsSignin } from "@latchkey/sveltekit";
import { fail } from "@sveltejs/kit";
import { signIn, signOut } from "../../hooks.server";
import type { Actions, PageServerLoad } from "./$types";

export const load: PageServerLoad = async ({ locals }) => ({ session: await locals.auth() });

export const actions: Actions = {
  signin: async (event) => {
    try {
      await signIn(event);
    } catch (e) {
      if (e instanceof CredentialsSignin) return fail(400, { error: e.type, code: e.code });
      if (e instanceof AuthError) return fail(400, { error: e.type, code: undefined });
      throw e; // SvelteKit's redirect on success
    }
  },
  signout: signOut,
};
