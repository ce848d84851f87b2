/**
 * The face of lib/actions/: every name the rest of the library uses from this wing. Entry modules
 * import lib/actions/ only through this file; other wings may import a name offered here from the
 * file that defines it (which keeps the import graph free of cycles), and nothing else of
 * lib/actions/: a name not offered here is the wing's own (test/structure/faces.ts checks both).
 */
export { callback } from "./callback.js";
export { csrf } from "./csrf.js";
export { organization } from "./organization.js";
export { error, verifyRequest } from "./pages.js";
export { providers } from "./providers.js";
export { session } from "./session.js";
export { signinGet, signinPost } from "./signin.js";
export { signoutGet, signoutPost } from "./signout.js";
export { webauthnOptions } from "./webauthn-options.js";
