"use client";
// The client side's session: one fetch shared by every useSession(), refreshed on focus.
import { SessionProvider } from "@latchkey/next/react";
import type { ReactNode } from "react";

export function Providers({ children }: { children: ReactNode }) {
  return <SessionProvider>{children}</SessionProvider>;
}
