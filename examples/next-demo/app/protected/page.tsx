// Protected by the proxy (proxy.ts) / middleware (middleware.ts): no check here. The page reads
// the session the proxy let through.
import { auth } from "../../lib/auth";

export default async function Protected() {
  const session = await auth();
  return (
    <>
      <h1>Protected page</h1>
      <p id="secret">Only signed-in users see this, {session?.user?.name ?? session?.user?.email}.</p>
    </>
  );
}
