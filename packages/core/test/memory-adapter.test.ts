import { type RecordKind, runAdapterConformance } from "@latchkey/adapter-test";
import { describe, expect, it } from "vitest";
import {
  createMemoryStore,
  MEMORY_AUDIT_LIMIT,
  MemoryAdapter,
  type MemoryStore,
  memoryAccountKey,
  memoryTokenKey,
} from "../src/memory-adapter.js";

function probe(store: MemoryStore) {
  return {
    async exists(kind: RecordKind, ...key: string[]) {
      const [a = "", b = ""] = key;
      switch (kind) {
        case "user":
          return store.users.has(a);
        case "account":
          return store.accounts.has(memoryAccountKey(a, b));
        case "session":
          return store.sessions.has(a);
        case "verificationToken":
          return store.verificationTokens.has(memoryTokenKey(a, b));
        case "authenticator":
          return store.authenticators.has(a);
      }
    },
    async recordsOf(userId: string) {
      const owned = [...store.accounts.values(), ...store.sessions.values(), ...store.authenticators.values()];
      return owned.filter((record) => record.userId === userId).length + (store.users.has(userId) ? 1 : 0);
    },
  };
}

runAdapterConformance("MemoryAdapter", async () => {
  const store = createMemoryStore();
  return { adapter: MemoryAdapter(store), db: probe(store), teardown: async () => {} };
});

describe("MemoryAdapter", () => {
  it("rule: only anonymous audit events are bounded by count: a flood past the bound drops its own oldest, never an account's event", async () => {
    const store = createMemoryStore();
    const adapter = MemoryAdapter(store);
    const at = (i: number) => new Date(Date.UTC(2026, 0, 1) + i);
    await adapter.createAuditEvent?.({ type: "signin.succeeded", at: at(0), userId: "victim" });
    for (let i = 1; i <= MEMORY_AUDIT_LIMIT + 500; i++) {
      const event =
        i % 2 === 0
          ? ({
              type: "signin.locked-out",
              at: at(i),
              reason: "credentialsPerIdentifier",
              identifier: `ghost-${i}`,
            } as const)
          : ({ type: "signin.failed", at: at(i), reason: "missing-csrf" } as const);
      await adapter.createAuditEvent?.(event);
      // Another user's own loop of sign-ins, interleaved: never trimmed by count either.
      if (i % 50 === 0) await adapter.createAuditEvent?.({ type: "signin.succeeded", at: at(i), userId: "looper" });
    }
    const events = store.auditEvents ?? [];
    expect(events.filter((e) => e.type === "signin.failed" || e.type === "signin.locked-out")).toHaveLength(
      MEMORY_AUDIT_LIMIT,
    );
    expect(events.filter((e) => e.userId === "looper")).toHaveLength((MEMORY_AUDIT_LIMIT + 500) / 50);
    expect(await adapter.listAuditEvents?.({ userId: "victim" })).toMatchObject([{ type: "signin.succeeded" }]);
    // The oldest anonymous events went first.
    expect(events.find((e) => e.type === "signin.failed")?.at).toEqual(at(501));
  });

  it("keeps its own copies: mutating what went in or came out changes nothing stored", async () => {
    const adapter = MemoryAdapter();
    const user = { id: "u1", name: "Ada", email: "ada@example.com", emailVerified: new Date(0) };
    await adapter.createUser?.(user);
    user.name = "Changed";
    user.emailVerified.setTime(1);
    const read = await adapter.getUser?.("u1");
    expect(read).toEqual({ id: "u1", name: "Ada", email: "ada@example.com", emailVerified: new Date(0) });
    if (read) read.name = "Changed again";
    expect((await adapter.getUser?.("u1"))?.name).toBe("Ada");
  });

  it("gives every adapter its own store unless one is passed", async () => {
    const first = MemoryAdapter();
    await first.createUser?.({ id: "u1", email: "a@example.com", emailVerified: null });
    expect(await MemoryAdapter().getUser?.("u1")).toBeNull();
    const store = createMemoryStore();
    await MemoryAdapter(store).createUser?.({ id: "u2", email: "b@example.com", emailVerified: null });
    expect((await MemoryAdapter(store).getUser?.("u2"))?.email).toBe("b@example.com");
  });
});
