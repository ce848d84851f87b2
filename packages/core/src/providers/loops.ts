/**
 * Magic-link sign-in by e-mail sent as a [Loops](https://loops.so) transactional e-mail
 * (`POST https://app.loops.so/api/v1/transactional`, `Authorization: Bearer <apiKey>`). The
 * message is the transactional template `transactionalId`, made in Loops with a data variable
 * `url` (the sign-in link; `code`, when the provider sends codes, is given too). The sender, the
 * subject and the text are the template's.
 *
 * - Environment variable: `AUTH_LOOPS_KEY` (the API key)
 *
 * @example
 * ```ts
 * import Loops from "@latchkey/core/providers/loops"
 * Loops({ transactionalId: "clfq6dinn000yl70fgwwyp82l" }) // apiKey from AUTH_LOOPS_KEY
 * ```
 * @see https://loops.so/docs/api-reference/send-transactional-email
 * @module providers/loops
 */
import { callEmailApi, requireApiKey } from "../lib/email/send.js";
import type { EmailConfig, EmailUserConfig, SendVerificationRequestParams } from "./email.js";

export type { EmailConfig, SendVerificationRequestParams } from "./email.js";

/** The Loops provider: an e-mail provider with the transactional template to send. */
export interface LoopsConfig extends EmailConfig {
  /** The id of the transactional e-mail in Loops, which has a data variable `url`. */
  transactionalId?: string;
  options?: LoopsUserConfig;
}

/** What `Loops()` takes. */
export type LoopsUserConfig = EmailUserConfig & { transactionalId?: string };

/**
 * Sends the sign-in link as the Loops transactional e-mail `transactionalId`. Exported so that a
 * custom `sendVerificationRequest` can wrap it.
 *
 * @example
 * ```ts
 * Loops({ transactionalId: "clfq6...", sendVerificationRequest: (params) => sendWithLoops(params) })
 * ```
 */
export async function sendWithLoops(params: SendVerificationRequestParams): Promise<void> {
  const { identifier, url, code } = params;
  const provider = params.provider as LoopsConfig;
  const apiKey = requireApiKey(provider);
  const transactionalId = provider.transactionalId;
  if (typeof transactionalId !== "string" || transactionalId === "") {
    throw new TypeError(
      `E-mail provider "${provider.id}" needs a \`transactionalId\`: the id of a transactional e-mail made in Loops with a data variable \`url\`.`,
    );
  }
  const dataVariables: Record<string, string> = { url };
  if (code) dataVariables.code = code;
  await callEmailApi(provider, "Loops", "https://app.loops.so/api/v1/transactional", {
    headers: { Authorization: `Bearer ${apiKey}`, "Content-Type": "application/json" },
    body: JSON.stringify({ transactionalId, email: identifier, dataVariables }),
  });
}

/**
 * Makes the Loops e-mail provider (id `loops`).
 *
 * @example
 * ```ts
 * Loops({ apiKey: "key", transactionalId: "clfq6dinn000yl70fgwwyp82l" })
 * ```
 */
export default function Loops(config: LoopsUserConfig = {}): LoopsConfig {
  return {
    id: "loops",
    name: "Loops",
    type: "email",
    maxAge: 10 * 60,
    sendVerificationRequest: sendWithLoops,
    options: config,
  };
}
