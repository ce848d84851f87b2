/**
 * The adapter types, as `next-auth/adapters` has them (the types of `@latchkey/core/adapters`).
 *
 * @example
 * ```ts
 * import type { Adapter } from "@latchkey/next/adapters"
 * export const adapter: Adapter = MyAdapter(db)
 * ```
 * @module @latchkey/next/adapters
 */
export type * from "@latchkey/core/adapters";
