/**
 * Debian's Chromium for the browser tests (through playwright-core, never a downloaded browser),
 * shared by every browser suite: where it is, whether the suites run, how it is started, and the
 * virtual passkey authenticator they sign in with.
 */
import { existsSync } from "node:fs";
import { type Browser, type CDPSession, chromium } from "playwright-core";

const CHROMIUM = "/usr/bin/chromium";
const chromiumPresent = existsSync(CHROMIUM);

/**
 * Whether a browser suite runs: always in CI (where a missing Chromium must fail, see
 * `launchChromium`), elsewhere only when Chromium is installed, with a visible notice if not.
 */
export function browserSuiteRuns(suite: string): boolean {
  if (!chromiumPresent && !process.env.CI) {
    console.warn(
      `\n[${suite}] SKIPPED: ${CHROMIUM} is missing (apt-get install -y chromium). Set CI to make this a failure.\n`,
    );
  }
  return chromiumPresent || !!process.env.CI;
}

/** Starts headless Chromium with the flags this machine's closed network needs; fails if it is missing. */
export function launchChromium(): Promise<Browser> {
  if (!chromiumPresent)
    throw new Error(`CI is set and ${CHROMIUM} is missing: install it with apt-get install -y chromium`);
  return chromium.launch({
    executablePath: CHROMIUM,
    args: [
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
    ],
  });
}

/** Adds a platform passkey authenticator (CTAP2, resident keys, user verification) to a page's session; returns its id. */
export async function addVirtualPasskey(cdp: CDPSession): Promise<string> {
  await cdp.send("WebAuthn.enable", { enableUI: false });
  const { authenticatorId } = await cdp.send("WebAuthn.addVirtualAuthenticator", {
    options: {
      protocol: "ctap2",
      transport: "internal",
      hasResidentKey: true,
      hasUserVerification: true,
      isUserVerified: true,
      automaticPresenceSimulation: true,
    },
  });
  return authenticatorId;
}
