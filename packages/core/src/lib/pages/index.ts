/**
 * The face of lib/pages/: every name the rest of the library uses from this wing. Entry modules
 * import lib/pages/ only through this file; other wings may import a name offered here from the
 * file that defines it (which keeps the import graph free of cycles), and nothing else of
 * lib/pages/: a name not offered here is the wing's own (test/structure/faces.ts checks both).
 */
export { type AccountPageName, accountPageContent, type PageNotice } from "./accounts.js";
export { html, type SafeHtml, safeColor } from "./html.js";
export { page } from "./layout.js";
export { errorPage } from "./other-pages.js";
export { otherPages } from "./responses.js";
export { secondFactorPage } from "./second-factor.js";
export { signinPage } from "./signin.js";
