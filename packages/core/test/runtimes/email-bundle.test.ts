/**
 * nodemailer stays out of an Edge or Worker bundle unless the application uses an SMTP provider:
 * the core and `@latchkey/core/accounts` (which sends password-account e-mails through the
 * configured SMTP provider's own sender) are bundled here with wrangler's export conditions, with
 * nodemailer installed (as in this repository, and in an application that also sends e-mail from
 * Node.js), and the bundle holds none of it. With the Nodemailer provider imported, it does: the
 * check sees nodemailer when it is there.
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

describe("nodemailer in a Worker's bundle", () => {
  it("is absent with the core, password accounts and an HTTP e-mail provider, and the bundle resolves nothing of Node.js", async () => {
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
    expect(files.some((file) => file.endsWith("core/dist/lib/email/smtp.js"))).toBe(false);
  });

  it("is there once the Nodemailer provider is imported", async () => {
    const files = await bundledFiles(
      `import Nodemailer from "@latchkey/core/providers/nodemailer";
       export { Nodemailer };`,
      "node",
    );
    expect(files.some((file) => file.endsWith("core/dist/lib/email/smtp.js"))).toBe(true);
    expect(files.filter(fromNodemailer).length).toBeGreaterThan(0);
  });
});
