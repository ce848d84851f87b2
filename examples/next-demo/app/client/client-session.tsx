"use client";
// useSession in a Client Component: its status and user, a name changed with update(), and
// the client signOut (every other tab of the browser sees it).
import { signOut, useSession } from "@latchkey/next/react";
import { useState } from "react";

export function ClientSession() {
  const { data: session, status, update } = useSession();
  const [name, setName] = useState("");
  return (
    <>
      <p>
        Status: <strong id="client-status">{status}</strong>
      </p>
      {session?.user ? (
        <>
          <p>
            Name: <strong id="client-name">{session.user.name ?? ""}</strong>
          </p>
          <form
            id="rename"
            onSubmit={(event) => {
              event.preventDefault();
              void update({ name });
            }}
          >
            <input aria-label="New name" value={name} onChange={(e) => setName(e.target.value)} required />
            <button type="submit">Change my name</button>
          </form>
          <p>
            <button id="client-signout" type="button" onClick={() => void signOut({ redirect: false })}>
              Sign out (client)
            </button>
          </p>
        </>
      ) : null}
    </>
  );
}
