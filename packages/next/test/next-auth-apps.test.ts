// next-auth v5 applications move by their imports alone, types included. Each folder of
// packages/next/fixtures/next-auth-apps is a small next-auth application written for this test
// from the patterns of next-auth's documentation and example applications (the documented module
// augmentations of `next-auth`, `next-auth/jwt` and `@auth/core`, every callback, `getToken`,
// the server actions, `auth()` in each of its forms, the React client, the Pages Router, an
// Auth.js adapter). At test time it is copied to a throw-away folder twice and type-checked with
// tsc under a Next.js application's tsconfig: once as written, against next-auth (the control:
// the program is one next-auth accepts), and once with `next-auth` and `@auth/core` imports
// changed to `@latchkey/next` and `@latchkey/core` (next-auth removed from its node_modules),
// against the built packages. Both must compile.
import { execFile } from "node:child_process";
import { cp, mkdir, mkdtemp, readdir, readFile, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";

const run = promisify(execFile);
const root = fileURLToPath(new URL("../../../", import.meta.url));
const apps = fileURLToPath(new URL("../fixtures/next-auth-apps/", import.meta.url));
const tsc = join(root, "node_modules/typescript/bin/tsc");

/** What the applications import (and what those packages' types import), from the monorepo's node_modules. */
const installed = [
  "next",
  "react",
  "react-dom",
  "@auth",
  "@next",
  "styled-jsx",
  "drizzle-orm",
  "pg",
  "pg-types",
  "pg-protocol",
];
const installedTypes = ["react", "react-dom", "node", "pg"];

/** A Next.js application's tsconfig (as `create-next-app` writes it, without the editor plugin). */
const tsconfig = {
  compilerOptions: {
    target: "ES2017",
    lib: ["dom", "dom.iterable", "esnext"],
    allowJs: true,
    skipLibCheck: true,
    strict: true,
    noEmit: true,
    esModuleInterop: true,
    module: "esnext",
    moduleResolution: "bundler",
    resolveJsonModule: true,
    isolatedModules: true,
    jsx: "react-jsx",
  },
  include: ["next-env.d.ts", "**/*.ts", "**/*.tsx"],
  exclude: ["node_modules"],
};

type Library = "next-auth" | "latchkey";

/** `next-auth` → `@latchkey/next`, `@auth/core` → `@latchkey/core`, in imports and `declare module` alike. */
function switchImports(source: string): string {
  return source
    .replace(/(["'])next-auth(\/[a-z/-]+)?\1/g, (_, quote, sub = "") => `${quote}@latchkey/next${sub}${quote}`)
    .replace(/(["'])@auth\/core(\/[a-z/-]+)?\1/g, (_, quote, sub = "") => `${quote}@latchkey/core${sub}${quote}`);
}

async function sourcesOf(dir: string): Promise<string[]> {
  const found: string[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) found.push(...(await sourcesOf(path)));
    else if (/\.tsx?$/.test(entry.name)) found.push(path);
  }
  return found;
}

let scratch: string;

/** The application `name`, written for `library` in a folder of its own. */
async function writeApp(name: string, library: Library): Promise<string> {
  const dir = join(scratch, `${name}-${library}`);
  await cp(join(apps, name), dir, { recursive: true });
  if (library === "latchkey")
    for (const file of await sourcesOf(dir)) await writeFile(file, switchImports(await readFile(file, "utf8")));
  const modules = join(dir, "node_modules");
  await mkdir(join(modules, "@types"), { recursive: true });
  const linked = [...installed, library === "latchkey" ? "@latchkey" : "next-auth"];
  for (const pkg of linked) await symlink(join(root, "node_modules", pkg), join(modules, pkg));
  for (const pkg of installedTypes) await symlink(join(root, "node_modules/@types", pkg), join(modules, "@types", pkg));
  await writeFile(
    join(dir, "next-env.d.ts"),
    '/// <reference types="next" />\n/// <reference types="next/image-types/global" />\n',
  );
  await writeFile(join(dir, "tsconfig.json"), JSON.stringify(tsconfig, null, 2));
  return dir;
}

/** tsc over the application: its exit code, its errors, and the files the program read. */
async function typeCheck(dir: string): Promise<{ code: number; errors: string; files: string[] }> {
  try {
    const { stdout } = await run(process.execPath, [tsc, "-p", dir, "--listFiles"], { maxBuffer: 64 * 1024 * 1024 });
    return { code: 0, errors: "", files: stdout.split("\n") };
  } catch (e) {
    const { code, stdout = "" } = e as { code?: number; stdout?: string };
    const lines = stdout.split("\n");
    return { code: code ?? 1, errors: lines.filter((l) => /error TS\d+/.test(l)).join("\n"), files: lines };
  }
}

beforeAll(async () => {
  scratch = await mkdtemp(join(tmpdir(), "latchkey-next-auth-apps-"));
});

afterAll(async () => {
  if (scratch) await rm(scratch, { recursive: true, force: true });
});

const names = (await readdir(apps, { withFileTypes: true })).filter((e) => e.isDirectory()).map((e) => e.name);

describe("next-auth v5 applications type-check after changing only their imports", () => {
  it("finds the applications to check", () => {
    expect(names.sort()).toEqual(["core-modules", "database-sessions", "documented", "required-user-fields"]);
  });

  it.each(names)(
    "%s: compiles against next-auth as written (the control) and against @latchkey/next with its imports changed",
    async (name) => {
      const [control, switched] = await Promise.all([writeApp(name, "next-auth"), writeApp(name, "latchkey")]);
      const asWritten = await typeCheck(control);
      expect(asWritten.errors, "the application is not one next-auth accepts").toBe("");
      expect(asWritten.code).toBe(0);
      expect(asWritten.files.some((f) => f.includes("/node_modules/next-auth/index.d.ts"))).toBe(true);

      const moved = await typeCheck(switched);
      expect(moved.errors).toBe("");
      expect(moved.code).toBe(0);
      // The program read Latchkey's built declarations, and nothing of next-auth.
      expect(moved.files.some((f) => f.endsWith("/packages/next/dist/index.d.ts"))).toBe(true);
      expect(moved.files.some((f) => f.includes("/next-auth/"))).toBe(false);
    },
    120_000 * inject("timeScale"),
  );
});
