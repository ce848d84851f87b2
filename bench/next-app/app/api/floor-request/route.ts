// The floor under the wrapped form (/api/wrapped), with no library: it reads the session cookie
// and the host from the request it is given, not through next/headers, as a wrapped auth() can,
// and answers a session of the same size.
import type { NextRequest } from "next/server";

export const dynamic = "force-dynamic";

export function GET(req: NextRequest) {
  const cookie = req.headers.get("cookie") ?? "";
  const host = req.headers.get("host");
  const expires = new Date(Date.now() + 30 * 86400_000).toISOString();
  return Response.json({ user: { name: "Ada Lovelace", email: cookie && host ? "ada@example.com" : null }, expires });
}
