/**
 * The `adapter-extensions-missing` warning: an adapter without some of Latchkey's optional
 * methods is told, once, which features they serve; Latchkey's own adapters are told nothing.
 */
import { describe, expect, it } from "vitest";
import type { Adapter } from "../../src/adapters.js";
import { resolveConfig } from "../../src/lib/config/resolve.js";
import { MemoryAdapter } from "../../src/memory-adapter.js";

function warningsFor(adapter: Adapter) {
  const warnings: Array<{ code: string; detail?: string }> = [];
  resolveConfig({
    secret: "extensions-warning-secret-0123456789abcdef",
    adapter,
    providers: [],
    logger: { warn: (code: string, detail?: string) => warnings.push({ code, detail }) },
  } as Parameters<typeof resolveConfig>[0]);
  return warnings.filter((w) => w.code === "adapter-extensions-missing");
}

describe("adapter-extensions-missing", () => {
  it("is not logged for an adapter with every extension (the MemoryAdapter)", () => {
    expect(warningsFor(MemoryAdapter())).toEqual([]);
  });

  it("names each missing method with the feature it turns off, and nothing the adapter has", () => {
    const { listSessions: _list, deleteSessions: _delete, ...adapter } = MemoryAdapter();
    const [warning, ...more] = warningsFor(adapter);
    expect(more).toEqual([]);
    expect(warning?.detail).toMatch(/listSessions \(the sessions list/);
    expect(warning?.detail).toMatch(/deleteSessions \(revokeOtherSessions and revokeUserSessions\)/);
    expect(warning?.detail).toContain("MissingAdapterMethods");
    expect(warning?.detail).not.toContain("listAccounts");
    expect(warning?.detail).not.toContain("a second factor");
  });
});
