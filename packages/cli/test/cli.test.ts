import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterAll, describe, expect, it } from "vitest";

const run = promisify(execFile);
const cli = fileURLToPath(new URL("../dist/cli.js", import.meta.url));
const dir = mkdtempSync(join(tmpdir(), "latchkey-cli-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("the latchkey command", () => {
  it("secret prints a fresh secret long enough for AUTH_SECRET, different each time", async () => {
    const a = (await run(process.execPath, [cli, "secret", "--raw"])).stdout.trim();
    const b = (await run(process.execPath, [cli, "secret", "--raw"])).stdout.trim();
    expect(a).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(a).not.toBe(b);
    expect((await run(process.execPath, [cli, "secret"])).stdout).toMatch(/^AUTH_SECRET="[A-Za-z0-9_-]{43}"\n$/);
  });
  it("migrate runs the SQL adapter's migrations and reports what it did", async () => {
    const url = `sqlite:${join(dir, "auth.db")}`;
    const first = await run(process.execPath, [cli, "migrate", url]);
    expect(first.stdout).toMatch(/users/);
    expect(first.stdout).toMatch(/done: \d+ change/);
    const second = await run(process.execPath, [cli, "migrate", url]);
    expect(second.stdout).toMatch(/nothing to do/);
  });
  it("migrate without a URL passes the SQL adapter's usage and exit code through", async () => {
    await expect(run(process.execPath, [cli, "migrate"])).rejects.toMatchObject({
      code: 2,
      stderr: expect.stringContaining("Usage: latchkey migrate <database-url>"),
    });
  });
  it("is the package's only entry: a bin, no importable subpath", async () => {
    const manifest = JSON.parse(readFileSync(fileURLToPath(new URL("../package.json", import.meta.url)), "utf8"));
    expect(manifest.bin).toEqual({ latchkey: "./dist/cli.js" });
    expect(Object.keys(manifest.exports)).toEqual(["./package.json"]);
    expect(readFileSync(cli, "utf8").startsWith("#!/usr/bin/env node\n")).toBe(true);
  });
  it("prints usage and exits 2 for an unknown command", async () => {
    await expect(run(process.execPath, [cli, "frobnicate"])).rejects.toMatchObject({
      code: 2,
      stderr: expect.stringMatching(/Usage/),
    });
  });
});
