// A public page: who is signed in, and how (auth() in a Server Component).
import { auth, type DemoSession, methodNames } from "../lib/auth";

export default async function Home() {
  const session = (await auth()) as DemoSession | null;
  if (!session?.user) {
    return (
      <>
        <h1>Latchkey Next.js demo</h1>
        <p id="who">You are not signed in.</p>
        <p>
          <a className="button" href="/login">
            Sign in
          </a>
        </p>
        <p>
          Demo account: <code>demo@example.com</code> / <code>demo-password</code>. Sign-in e-mails (a link and a code)
          arrive at <a href="/dev/mail">/dev/mail</a>; the Demo IdP takes any name and password.
        </p>
      </>
    );
  }
  const method = methodNames[session.provider ?? ""] ?? session.provider ?? "a stored session";
  return (
    <>
      <h1>Latchkey Next.js demo</h1>
      <p id="who">
        Signed in as <strong>{session.user.name ?? session.user.email}</strong> ({session.user.email}) with{" "}
        <strong id="method">{method}</strong>
        {session.amr?.includes("otp") ? (
          <>
            {" "}
            and <strong id="second-factor">an authenticator app code</strong>
          </>
        ) : null}
        .
      </p>
    </>
  );
}
