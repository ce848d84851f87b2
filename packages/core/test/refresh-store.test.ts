/**
 * The refresh store of `@latchkey/core/refresh-store`, in memory, against the conformance suite
 * every `RefreshStore` runs (the shared ones run it in their packages: `RedisRefreshStore` in
 * `@latchkey/redis-adapter`, `SqlRefreshStore` in `@latchkey/sql-adapter`).
 */
import { runRefreshStoreConformance } from "../../adapter-test/src/refresh-store.js";
import { MemoryRefreshStore } from "../src/refresh-store.js";

runRefreshStoreConformance("MemoryRefreshStore", async () => {
  const store = new MemoryRefreshStore();
  return { stores: [store, store], teardown: async () => {} };
});
