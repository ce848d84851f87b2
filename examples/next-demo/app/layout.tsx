import type { Metadata } from "next";
import type { ReactNode } from "react";
import { auth, signOut } from "../lib/auth";
import "./globals.css";
import { Providers } from "./providers";

// auth() in generateMetadata: the tab shows who is signed in.
export async function generateMetadata(): Promise<Metadata> {
  const session = await auth();
  return {
    title: session?.user
      ? `Latchkey Next.js demo · ${session.user.name ?? session.user.email}`
      : "Latchkey Next.js demo",
  };
}

export default async function RootLayout({ children }: { children: ReactNode }) {
  // Rendered again after a server action signs in or out: the client session follows.
  const session = await auth();
  return (
    <html lang="en">
      <body>
        <Providers session={session}>
          <nav>
            <a href="/">Home</a>
            <a href="/protected">Protected</a>
            <a href="/account">Account</a>
            <a href="/client">Client session</a>
            <a href="/login">Sign in</a>
            {process.env.DEMO_MAIL_URL ? <a href="/dev/mail">Mail</a> : null}
            <form
              className="inline"
              id="nav-signout"
              action={async () => {
                "use server";
                await signOut({ redirectTo: "/" });
              }}
            >
              <button type="submit">Sign out</button>
            </form>
          </nav>
          {children}
        </Providers>
      </body>
    </html>
  );
}
