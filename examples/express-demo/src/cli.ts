/**
 * A command-line tool that signs in with the demo through the device authorization grant
 * (RFC 8628): it asks for a code, shows where to type it, waits while the user signs in and
 * approves in a browser, then calls the demo's API with the access token.
 *
 *   node dist/cli.js http://localhost:3000
 *
 * `deviceSignIn` is the whole flow, for the tests; `main` prints.
 */
import { fileURLToPath } from "node:url";

export interface DeviceCode {
  userCode: string;
  verificationUri: string;
  verificationUriComplete: string;
}

export interface SignedIn {
  tokens: { access_token: string; refresh_token?: string; id_token?: string };
  /** The demo's answer to GET /api/me with the access token. */
  me: { sub: string; name: string | null; email: string | null; client: string };
}

/** The JSON of a response, or an error saying what came instead. */
async function jsonOf(response: Response): Promise<Record<string, unknown>> {
  const text = await response.text();
  try {
    return JSON.parse(text) as Record<string, unknown>;
  } catch {
    throw new Error(`${response.url} answered ${response.status}, not JSON`);
  }
}

/**
 * Signs in with the demo at `url`: `show` is told the code and where to enter it; `wait(seconds)`
 * waits between polls (the server's interval, longer after `slow_down`).
 */
export async function deviceSignIn(
  url: string,
  show: (code: DeviceCode) => void,
  wait: (seconds: number) => Promise<void> = (s) => new Promise((resolve) => setTimeout(resolve, s * 1000)),
): Promise<SignedIn> {
  const metadata = await jsonOf(await fetch(`${url}/.well-known/oauth-authorization-server`));
  const { client_id } = (await jsonOf(await fetch(`${url}/cli/client-id`))) as { client_id: string };
  const form = (fields: Record<string, string>) => ({
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams(fields).toString(),
  });
  const device = await jsonOf(
    await fetch(
      String(metadata.device_authorization_endpoint),
      form({ client_id, scope: "openid profile email offline_access" }),
    ),
  );
  if (typeof device.device_code !== "string") throw new Error(`No device code: ${JSON.stringify(device)}`);
  show({
    userCode: String(device.user_code),
    verificationUri: String(device.verification_uri),
    verificationUriComplete: String(device.verification_uri_complete),
  });
  let interval = Number(device.interval ?? 5);
  for (;;) {
    await wait(interval);
    const answer = await jsonOf(
      await fetch(
        String(metadata.token_endpoint),
        form({
          grant_type: "urn:ietf:params:oauth:grant-type:device_code",
          device_code: device.device_code,
          client_id,
        }),
      ),
    );
    if (typeof answer.access_token === "string") {
      const tokens = answer as SignedIn["tokens"];
      const me = await jsonOf(
        await fetch(`${url}/api/me`, { headers: { authorization: `Bearer ${tokens.access_token}` } }),
      );
      return { tokens, me: me as SignedIn["me"] };
    }
    if (answer.error === "slow_down") interval += 5;
    else if (answer.error !== "authorization_pending")
      throw new Error(`Sign-in failed: ${String(answer.error_description ?? answer.error)}`);
  }
}

async function main(url = "http://localhost:3000") {
  const { me } = await deviceSignIn(url, (code) => {
    console.log(`To sign in, open ${code.verificationUriComplete}`);
    console.log(`(or ${code.verificationUri} and enter the code ${code.userCode})`);
  });
  console.log(`Signed in as ${me.name ?? me.sub} <${me.email ?? "no e-mail"}>`);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  main(process.argv[2]).catch((e: unknown) => {
    console.error(e instanceof Error ? e.message : e);
    process.exit(1);
  });
}
