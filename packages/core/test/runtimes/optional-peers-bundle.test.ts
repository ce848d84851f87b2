/**
 * The optional peers stay out of an Edge or Worker bundle unless the application uses a provider
 * that needs them: nodemailer (SMTP: the Nodemailer and Email providers) and
 * `@simplewebauthn/server` (the WebAuthn and Passkey providers, whose package Next.js's Edge
 * compilation refuses: it evaluates code dynamically). The core and `@latchkey/core/accounts`
 * (which sends password-account e-mails through the configured SMTP provider's own sender) are
 * bundled here with wrangler's export conditions, with both peers installed (as in this
 * repository, and in an application that also uses them on Node.js), and the bundle holds
 * neither. With the providers imported, it holds each: the check sees a peer when it is there.
 */
import { build } from "esbuild";
import { describe, expect, it } from "vitest";

/** The files esbuild put into a bundle of `source`, for a Worker (`platform` "neutral": no Node.js built-in resolves). */
async function bundledFiles(source: string, platform: "neutral" | "node"): Promise<string[]> {
  const result = await build({
    stdin: { contents: source, resolveDir: import.meta.dirname, loader: "ts" },
    bundle: true,
    format: "esm",
    platform,
    conditions: ["workerd", "worker", "browser"],
    mainFields: ["browser", "module", "main"],
    target: "es2022",
    write: false,
    metafile: true,
    logLevel: "silent",
  });
  return Object.keys(result.metafile.inputs);
}

const fromNodemailer = (file: string) => file.includes("node_modules/nodemailer/");
const fromSimpleWebAuthn = (file: string) => file.includes("node_modules/@simplewebauthn/server/");

describe("optional peers in a Worker's bundle", () => {
  it("are absent with the core, password accounts and an HTTP e-mail provider, and the bundle resolves nothing of Node.js", async () => {
    const files = await bundledFiles(
      `import { Auth } from "@latchkey/core";
       import { authorizePassword, requestPasswordReset, signUp } from "@latchkey/core/accounts";
       import Resend from "@latchkey/core/providers/resend";
       export { Auth, authorizePassword, requestPasswordReset, signUp, Resend };`,
      "neutral",
    );
    expect(files.some((file) => file.endsWith("core/dist/accounts.js"))).toBe(true);
    expect(files.some((file) => file.endsWith("core/dist/lib/email/send.js"))).toBe(true);
    expect(files.filter(fromNodemailer)).toEqual([]);
    expect(files.filter(fromSimpleWebAuthn)).toEqual([]);
    expect(files.some((file) => file.endsWith("core/dist/lib/email/smtp.js"))).toBe(false);
    // The WebAuthn flow itself is there (reached from the callback action), without the package.
    expect(files.some((file) => file.endsWith("core/dist/lib/flows/webauthn/library.js"))).toBe(true);
  });

  it("each is there once a provider that needs it is imported", async () => {
    const files = await bundledFiles(
      `import Nodemailer from "@latchkey/core/providers/nodemailer";
       import Passkey from "@latchkey/core/providers/passkey";
       export { Nodemailer, Passkey };`,
      "node",
    );
    expect(files.some((file) => file.endsWith("core/dist/lib/email/smtp.js"))).toBe(true);
    expect(files.filter(fromNodemailer).length).toBeGreaterThan(0);
    expect(files.filter(fromSimpleWebAuthn).length).toBeGreaterThan(0);
  });
});
