import { runAdminStoreConformance } from "@latchkey/adapter-test/admin-store";
import { MemoryAdminStore } from "../../src/admin.js";

runAdminStoreConformance("MemoryAdminStore", async () => {
  const store = MemoryAdminStore();
  return { stores: [store, store], teardown: async () => {} };
});
