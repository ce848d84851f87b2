// auth() in a Route Handler: the session as JSON, or 401.
import { auth } from "../../../lib/auth";

export async function GET() {
  const session = await auth();
  if (!session?.user) return Response.json({ error: "not signed in" }, { status: 401 });
  return Response.json(session);
}
