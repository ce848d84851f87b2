import { runApiKeyStoreConformance } from "@latchkey/adapter-test/api-key-store";
import { MemoryApiKeyStore } from "../../src/api-keys.js";

runApiKeyStoreConformance("MemoryApiKeyStore", async () => {
  const store = MemoryApiKeyStore();
  return { stores: [store, store], teardown: async () => {} };
});
