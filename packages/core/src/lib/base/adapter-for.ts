import type { Adapter } from "../../shapes/adapters.js";
import { MissingAdapter, MissingAdapterMethods } from "./errors.js";

/** The name of an adapter method. */
export type AdapterMethod = Exclude<keyof Adapter, "transaction">;

/** An adapter whose methods `M` are present (the others stay optional). */
export type AdapterWith<M extends AdapterMethod> = Adapter & Required<Pick<Adapter, M>>;

/**
 * True when `adapter` has every method of `methods`; narrows it to an adapter with them.
 *
 * @example
 * ```ts
 * if (hasMethods(adapter, "listSessions")) await adapter.listSessions(userId)
 * ```
 */
export function hasMethods<M extends AdapterMethod>(
  adapter: Adapter | undefined,
  ...methods: M[]
): adapter is AdapterWith<M> {
  return adapter !== undefined && methods.every((m) => typeof adapter[m] === "function");
}

/**
 * The configuration's adapter with exactly the methods an action needs, checked: no adapter is
 * `MissingAdapter`, a missing method `MissingAdapterMethods` naming it (never a `TypeError` from
 * calling `undefined`). Resolution checks what each feature needs (lib/config/resolve.ts), so this fails
 * only for an action that needs more than its feature does.
 *
 * @example
 * ```ts
 * const adapter = adapterFor(ctx.config, "getUserByAccount", "linkAccount")
 * const user = await adapter.getUserByAccount({ provider, providerAccountId })
 * ```
 */
export function adapterFor<M extends AdapterMethod>(
  config: { readonly adapter?: Adapter },
  ...methods: M[]
): AdapterWith<M> {
  const { adapter } = config;
  if (!adapter) throw new MissingAdapter("This action needs an `adapter`, and none is configured.");
  return withMethods(adapter, methods);
}

/**
 * `adapter` (an adapter, or the one a transaction hands over) checked to have `methods`, as
 * {@link adapterFor} checks the configuration's.
 *
 * @example
 * ```ts
 * await adapter.transaction((tx) => work(withMethods(tx, ["createUser", "linkAccount"])))
 * ```
 */
export function withMethods<A extends Adapter, M extends AdapterMethod>(
  adapter: A,
  methods: readonly M[],
): A & Required<Pick<Adapter, M>> {
  const missing = methods.filter((m) => typeof adapter[m] !== "function");
  if (missing.length || !hasMethods(adapter, ...methods)) {
    throw new MissingAdapterMethods(
      `This action needs the adapter methods ${missing.join(", ")}, which the adapter lacks.`,
    );
  }
  return adapter;
}
