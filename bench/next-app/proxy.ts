// The proxy in front of /protected: each library's auth() wrapper; without a session, a redirect.
import { NextResponse } from "next/server";
import { auth } from "./lib/auth";

type Gate = (req: { auth: unknown; url: string }) => Response | undefined;
const gate: Gate = (req) => (req.auth ? undefined : NextResponse.redirect(new URL("/open", req.url)));

export default auth ? (auth as unknown as (gate: Gate) => unknown)(gate) : () => NextResponse.next();

export const config = { matcher: ["/protected"] };
