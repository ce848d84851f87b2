/**
 * The MemoryAdapter's audit methods against the conformance suite every audit store runs (the
 * Redis and SQL adapters run it in their own packages). It keeps at most `MEMORY_AUDIT_LIMIT`
 * anonymous events, dropping its own oldest; one process has no outage to stand in.
 */
import { auditStoreOf, runAuditStoreConformance } from "../../adapter-test/src/audit-store.js";
import { MEMORY_AUDIT_LIMIT, MemoryAdapter } from "../src/memory-adapter.js";

runAuditStoreConformance("MemoryAdapter", async () => ({
  store: auditStoreOf(MemoryAdapter()),
  anonymousBound: { max: MEMORY_AUDIT_LIMIT },
  teardown: async () => {},
}));
