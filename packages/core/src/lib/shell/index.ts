/**
 * The face of lib/shell/: what the framework packages bind to their request types (the sessions'
 * and password accounts' functions, a warning logged once), offered to `@latchkey/core/internal`;
 * nothing else of lib/shell/ is used from outside it (test/structure/faces.ts checks it).
 */
export { boundAccounts, boundSessions, warnOnceFor } from "./bound.js";
