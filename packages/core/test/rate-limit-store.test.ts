/**
 * The in-memory rate-limit store of `@latchkey/core/rate-limit` against the conformance suite every
 * `RateLimitStore` runs (the Redis store runs it in `@latchkey/redis-adapter`'s tests). What only
 * the memory store has (its bound against a flood of fresh keys) is proven in
 * `security/rate-limit.test.ts`.
 */
import { runRateLimitStoreConformance } from "../../adapter-test/src/rate-limit-store.js";
import { MemoryRateLimitStore } from "../src/rate-limit.js";

runRateLimitStoreConformance("MemoryRateLimitStore", async () => {
  const store = new MemoryRateLimitStore();
  return { stores: [store, store], teardown: async () => {} };
});
