/**
 * The in-memory revocation store of `@latchkey/core/revocation` against the conformance suite
 * every `RevocationStore` runs (the Redis and SQL stores run it in their own packages' tests).
 */
import { runRevocationStoreConformance } from "../../adapter-test/src/revocation-store.js";
import { MemoryRevocationStore } from "../src/revocation.js";

runRevocationStoreConformance("MemoryRevocationStore", async () => {
  const store = new MemoryRevocationStore();
  return { open: () => store, teardown: async () => {} };
});
