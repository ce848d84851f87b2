/**
 * `ChannelHealth`, the heartbeat every shared revocation store watches its push channel with (and
 * so every session cache and revocation list trusts): how long a channel that stops delivering
 * without closing (a black hole: no error, no `close`) is still believed up, and that a check given
 * up at its timeout is never joined by another (issue 34.5, 34.6). On the real class, its timers
 * faked; the link's silence is a check that never answers, as a black-holed connection's.
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import { ChannelHealth } from "../../src/stores.js";

afterEach(() => {
  vi.useRealTimers();
});

const HEARTBEAT = 5000;

/** A channel whose checks answer at once until `silent`, then never; what its listener heard, and when. */
function watched() {
  vi.useFakeTimers();
  const link = { silent: false, checks: 0, running: 0 };
  const heard: Array<{ what: "down" | "up"; at: number }> = [];
  const health = new ChannelHealth(
    () => ({
      entry: () => {},
      down: () => void heard.push({ what: "down", at: Date.now() }),
      up: () => void heard.push({ what: "up", at: Date.now() }),
    }),
    () => {
      link.checks += 1;
      if (!link.silent) return Promise.resolve();
      link.running += 1;
      return new Promise<void>(() => {});
    },
    HEARTBEAT,
  );
  health.start();
  return { health, link, heard };
}

describe("ChannelHealth: a channel that stops delivering without closing", () => {
  it.each([
    ["right after a check answered (the worst case)", 1],
    ["halfway between two checks", HEARTBEAT / 2],
    ["just before a check", HEARTBEAT - 1],
  ])("rule: silent %s, it is reported down at most two heartbeats after it fell silent", async (_, offset) => {
    const { health, link, heard } = watched();
    await vi.advanceTimersByTimeAsync(HEARTBEAT); // one check, answered
    expect(link.checks).toBe(1);
    await vi.advanceTimersByTimeAsync(offset);
    link.silent = true;
    const fellSilent = Date.now();
    await vi.advanceTimersByTimeAsync(2 * HEARTBEAT);
    const down = heard.find((h) => h.what === "down");
    expect(down, "down within two heartbeats").toBeDefined();
    expect((down?.at ?? Number.POSITIVE_INFINITY) - fellSilent).toBeLessThanOrEqual(2 * HEARTBEAT);
    health.stop();
  });

  it("rule: a check given up at its timeout is never joined by another: however long the silence, one check is outstanding", async () => {
    const { health, link, heard } = watched();
    link.silent = true;
    await vi.advanceTimersByTimeAsync(20 * HEARTBEAT);
    expect(heard.map((h) => h.what)).toEqual(["down"]);
    expect(link.running).toBe(1);
    expect(link.checks).toBe(1);
    health.stop();
  });
});
