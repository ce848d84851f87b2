/**
 * The face of lib/email/: every name the rest of the library uses from this wing. Entry modules
 * import lib/email/ only through this file; other wings may import a name offered here from the
 * file that defines it (which keeps the import graph free of cycles), and nothing else of
 * lib/email/: a name not offered here is the wing's own (test/structure/faces.ts checks both).
 */
export {
  assertSingleMailbox,
  InvalidEmailAddress,
  MAX_ADDRESS_LENGTH,
  normalizeEmailIdentifier,
} from "./identifier.js";
export { type EmailMessage, emailMessage } from "./message.js";
export { callEmailApi, defaultMessage, parseMailbox, requireApiKey, requireFrom } from "./send.js";
export { sendWithNodemailer } from "./smtp.js";
