// The floor under any library's auth() in a Route Handler, with no library: it reads the request's
// headers as auth() must (the session cookie, the host) and answers a session of the same size.
import { headers } from "next/headers";

export const dynamic = "force-dynamic";

export async function GET() {
  const cookie = (await headers()).get("cookie") ?? "";
  const expires = new Date(Date.now() + 30 * 86400_000).toISOString();
  return Response.json({ user: { name: "Ada Lovelace", email: cookie ? "ada@example.com" : null }, expires });
}
