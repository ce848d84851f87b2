// A signed-in Route Handler calling auth().
import { auth } from "../../../lib/auth";

export const dynamic = "force-dynamic";

export async function GET() {
  if (!auth) return new Response("no auth library on this server", { status: 404 });
  const session = await (auth as () => Promise<unknown>)();
  return Response.json(session);
}
