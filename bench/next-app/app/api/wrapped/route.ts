// A signed-in Route Handler in the wrapped form next-auth v5 documents for Route Handlers:
// `export const GET = auth((req) => Response.json(req.auth))`, the session from the request the
// handler is given (the same session-sized answer as /api/me).
import type { NextRequest } from "next/server";
import { auth } from "../../../lib/auth";

export const dynamic = "force-dynamic";

type Wrapped = (req: NextRequest, ctx: { params: Promise<Record<string, never>> }) => Promise<Response>;
const wrap = auth as unknown as ((handler: (req: { auth: unknown }) => Response) => Wrapped) | undefined;
const wrapped = wrap?.((req) => Response.json(req.auth));

export function GET(req: NextRequest, ctx: { params: Promise<Record<string, never>> }) {
  return wrapped ? wrapped(req, ctx) : new Response("no auth library on this server", { status: 404 });
}
