"use client";
// The client side's session: one fetch shared by every useSession(), refreshed on focus.
import type { Session } from "@latchkey/next";
import { SessionProvider } from "@latchkey/next/react";
import type { ReactNode } from "react";

/** `session` is what auth() read on the server for this render: no loading state on first paint. */
export function Providers({ children, session }: { children: ReactNode; session: Session | null }) {
  return <SessionProvider session={session}>{children}</SessionProvider>;
}
