import type { NextRequest } from "next/server";
import { handlers } from "../../../../lib/auth";

const missing = () => new Response("no auth library on this server", { status: 404 });
export const GET = (req: NextRequest) => (handlers ? handlers.GET(req) : missing());
export const POST = (req: NextRequest) => (handlers ? handlers.POST(req) : missing());
