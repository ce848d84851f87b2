/** `MemoryAuthorizationStore` runs the conformance suite every authorization store runs. */
import { runAuthorizationStoreConformance } from "@latchkey/adapter-test/authorization-store";
import { MemoryAuthorizationStore } from "../../src/authorization-server.js";

runAuthorizationStoreConformance("MemoryAuthorizationStore", async () => {
  const store = new MemoryAuthorizationStore();
  return { stores: [store, store], teardown: async () => {} };
});
