"use client";
// The form of each password-account page: a Server Action through useActionState, its error or
// notice shown under it. The fields are the page's (hidden ones for a link's token, address, user).
import { useActionState } from "react";
import type { AccountFormState } from "../lib/account-actions";

export interface Field {
  name: string;
  label: string;
  type: "email" | "password" | "text" | "hidden";
  autoComplete?: string;
  value?: string;
}

export function AccountForm({
  id,
  action,
  fields,
  passwordField,
  submit,
}: {
  id: string;
  action: (state: AccountFormState, form: FormData) => Promise<AccountFormState>;
  fields: Field[];
  /** Shown once the action asks for it (a verification link opened in another browser). */
  passwordField?: Field;
  submit: string;
}) {
  const [state, formAction, pending] = useActionState<AccountFormState, FormData>(action, {});
  const shown = state.askPassword && passwordField ? [...fields, passwordField] : fields;
  return (
    <form id={id} action={formAction}>
      {shown.map((f) =>
        f.type === "hidden" ? (
          <input key={f.name} type="hidden" name={f.name} value={f.value ?? ""} />
        ) : (
          <input
            key={f.name}
            name={f.name}
            type={f.type}
            autoComplete={f.autoComplete}
            required
            aria-label={f.label}
            placeholder={f.label}
          />
        ),
      )}
      <button type="submit" disabled={pending}>
        {submit}
      </button>
      {state.error ? (
        <p className="alert" role="alert" id={`${id}-error`}>
          {state.error}
        </p>
      ) : null}
      {state.notice ? (
        <p role="status" id={`${id}-notice`}>
          {state.notice}
        </p>
      ) : null}
    </form>
  );
}
