import { runOrganizationStoreConformance } from "@latchkey/adapter-test/organization-store";
import { MemoryOrganizationStore } from "../../src/organizations.js";

runOrganizationStoreConformance("MemoryOrganizationStore", async () => {
  const store = MemoryOrganizationStore();
  return { stores: [store, store], teardown: async () => {} };
});
