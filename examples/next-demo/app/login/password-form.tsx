"use client";
import { useActionState } from "react";
import { type PasswordState, passwordSignIn } from "./actions";

export function PasswordForm({ callbackUrl }: { callbackUrl: string }) {
  const [state, action, pending] = useActionState<PasswordState, FormData>(passwordSignIn, {});
  return (
    <form id="password-form" action={action}>
      <input type="hidden" name="callbackUrl" value={callbackUrl} />
      <input
        name="email"
        type="email"
        autoComplete="username"
        required
        aria-label="Email"
        placeholder="Email"
        defaultValue={state.email}
      />
      <input
        name="password"
        type="password"
        autoComplete="current-password"
        required
        aria-label="Password"
        placeholder="Password"
      />
      <button type="submit" disabled={pending}>
        Sign in with password
      </button>
      {state.error ? (
        <p className="alert" role="alert" id="password-error">
          {state.error}
        </p>
      ) : null}
    </form>
  );
}
