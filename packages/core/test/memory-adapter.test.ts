import { type RecordKind, runAdapterConformance } from "@latchkey/adapter-test";
import { describe, expect, it } from "vitest";
import {
  createMemoryStore,
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
