/**
 * What the proxy (Next.js 16, proxy.ts) or middleware (Next.js 15, middleware.ts) runs before the
 * pages it matches: `auth()` as a wrapper puts the session on `req.auth`; without one, off to the
 * sign-in page and back after.
 */
import { NextResponse } from "next/server";
import { auth } from "./auth";

export const gate = auth((req) => {
  if (req.auth?.user) return;
  const login = new URL("/login", req.nextUrl.origin);
  login.searchParams.set("callbackUrl", req.nextUrl.pathname + req.nextUrl.search);
  return NextResponse.redirect(login);
});
