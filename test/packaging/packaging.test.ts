// What a user installs is what is tested here: every publishable package is packed (`npm pack`,
// from the built dist/), the tarballs are installed into a scratch project in a temporary
// folder, and that project imports and require()s every subpath its package.json `exports`
// declares, type-checks a consumer against the published .d.ts, runs the `latchkey` command of
// @latchkey/cli (a bin, with no importable subpath) and an Express application written in
// CommonJS. Each tarball's README, LICENSE and registry metadata are checked. publint and
// @arethetypeswrong/cli lint each tarball. A second case breaks
// one `exports` entry of a copy of a package and asserts that every checker reports it, so the
// checks cannot pass by checking nothing.
import { type ChildProcess, execFile, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { once } from "node:events";
import { cp, mkdir, mkdtemp, open, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";

const run = promisify(execFile);
const root = fileURLToPath(new URL("../..", import.meta.url));
const fixtures = fileURLToPath(new URL("./fixtures", import.meta.url));
const bin = {
  publint: join(root, "node_modules/publint/src/cli.js"),
  attw: join(root, "node_modules/@arethetypeswrong/cli/dist/index.js"),
  tsc: join(root, "node_modules/typescript/bin/tsc"),
};
// Installed next to the tarballs: the peers the packages need and the types the consumer uses,
// at the versions the monorepo itself has, so npm finds them in its cache.
const thirdParty = [
  "express",
  "kysely",
  "@types/express",
  "@types/node",
  "hono",
  "@hono/node-server",
  "fastify",
  "@sveltejs/kit",
];
// Next.js and React (the peers of @latchkey/next) are linked to the monorepo's own copies rather
// than copied: Next.js alone is over a hundred megabytes, and what is tested is our tarball.
const linkedThirdParty = ["next", "react", "react-dom", "@types/react"];

interface Manifest {
  name: string;
  private?: boolean;
  exports: Record<string, string | Record<string, string>>;
}
interface Pkg {
  manifest: Manifest;
  workspace: string;
  tarball: string;
  /** The paths inside the tarball, as `npm pack` lists them. */
  files: string[];
}
interface Outcome {
  code: number;
  /** Standard output alone (some tools print JSON there and notices on standard error). */
  stdout: string;
  /** Both streams, for messages. */
  output: string;
}

async function readJson<T>(path: string): Promise<T> {
  return JSON.parse(await readFile(path, "utf8")) as T;
}

/** Text without ANSI colour codes (a tool may colour even with NO_COLOR). */
function plain(text: string): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: the escape is what is removed
  return text.replace(/\u001b\[[0-9;]*m/g, "");
}

async function exec(file: string, args: string[], cwd: string): Promise<Outcome> {
  try {
    // Plain text, whatever the terminal: CI=true makes some tools colour their output.
    const env = { ...process.env, NO_COLOR: "1", FORCE_COLOR: "0" };
    const { stdout, stderr } = await run(file, args, { cwd, maxBuffer: 64 * 1024 * 1024, env });
    return { code: 0, stdout: plain(stdout), output: plain(stdout + stderr) };
  } catch (e) {
    const failure = e as { code?: number; stdout?: string; stderr?: string };
    const stdout = plain(failure.stdout ?? "");
    return {
      code: typeof failure.code === "number" ? failure.code : 1,
      stdout,
      output: stdout + plain(failure.stderr ?? ""),
    };
  }
}

async function npm(args: string[], cwd: string): Promise<string> {
  const outcome = await exec("npm", args, cwd);
  if (outcome.code !== 0) throw new Error(`npm ${args.join(" ")} failed:\n${outcome.output}`);
  return outcome.stdout;
}

/**
 * The subpaths a package documents: the keys of its `exports` (without `./package.json`), a
 * `*` pattern expanded to the files of its target that are in the package directory.
 */
async function entrypoints(packageDir: string, manifest: Manifest): Promise<string[]> {
  const found: string[] = [];
  for (const [key, target] of Object.entries(manifest.exports)) {
    if (key === "./package.json") continue;
    if (!key.includes("*")) {
      found.push(key);
      continue;
    }
    const pattern = typeof target === "string" ? target : (target.default ?? target.import ?? "");
    const [before, after] = pattern.split("*") as [string, string];
    const files = await readdir(join(packageDir, before));
    for (const file of files.sort()) {
      if (file.endsWith(after) && !file.endsWith(`.d${after}`))
        found.push(key.replace("*", file.slice(0, -after.length)));
    }
  }
  return found;
}

const specifier = (name: string, entry: string) => (entry === "." ? name : `${name}${entry.slice(1)}`);

interface LoadReport {
  /** Specifiers that failed to load, with how and why. */
  failures: string[];
  /** Specifiers whose require() gave other export names than import(). */
  mismatches: string[];
  /** Export names of each specifier, as import() saw them. */
  names: Record<string, string[]>;
}

/**
 * Loads every specifier in the scratch project twice, in two fresh Node processes: with import()
 * from an ES module and with require() from a CommonJS one.
 */
async function loadAll(projectDir: string, specifiers: string[]): Promise<LoadReport> {
  const list = JSON.stringify(specifiers);
  const body = (load: string) => `const out = {};
for (const s of ${list}) {
  try { out[s] = { names: Object.keys(${load}).sort() }; }
  catch (e) { out[s] = { error: String(e && e.code || e) + ": " + String(e && e.message).split("\\n")[0] }; }
}
process.stdout.write(JSON.stringify(out));`;
  await writeFile(join(projectDir, "load.mjs"), `${body("await import(s)")}\n`);
  await writeFile(join(projectDir, "load.cjs"), `${body("require(s)")}\n`);
  type Loaded = Record<string, { names?: string[]; error?: string }>;
  const results: Record<"import" | "require", Loaded> = { import: {}, require: {} };
  for (const [how, file] of [
    ["import", "load.mjs"],
    ["require", "load.cjs"],
  ] as const) {
    const outcome = await exec(process.execPath, [file], projectDir);
    if (outcome.code !== 0) throw new Error(`${file} crashed:\n${outcome.output}`);
    results[how] = JSON.parse(outcome.stdout) as Loaded;
  }
  const report: LoadReport = { failures: [], mismatches: [], names: {} };
  for (const s of specifiers) {
    const [imported, required] = [results.import[s], results.require[s]];
    for (const [how, result] of [
      ["import", imported],
      ["require", required],
    ] as const) {
      // A module may have no runtime exports (type-only ones such as providers/oauth); it must load.
      if (!result?.names) report.failures.push(`${how}(${s}): ${result?.error ?? "no result"}`);
    }
    if (imported?.names && required?.names) {
      report.names[s] = imported.names;
      // require(esm) adds `__esModule` to the namespace of a module with a default export, so that
      // transpiled CommonJS code reads `default` as it expects; import() does not.
      const requiredNames = required.names.filter((n) => n !== "__esModule");
      if (imported.names.join() !== requiredNames.join()) report.mismatches.push(s);
    }
  }
  return report;
}

/** publint on a tarball, warnings counted as errors. */
function publint(tarball: string): Promise<Outcome> {
  return exec(process.execPath, [bin.publint, "run", tarball, "--strict"], root);
}

interface AttwReport extends Outcome {
  /** `entrypoint (resolution): kind` of every problem the profile does not ignore. */
  problems: string[];
}

/**
 * @arethetypeswrong/cli on a tarball with the `esm-only` profile: the packages are ES modules
 * (CommonJS callers use Node's require(esm)), so attw's `node10` view (no `exports` at all) and
 * its `node16-cjs` view (TypeScript before `module: node20`, where require() of an ES module is
 * an error) describe resolutions the packages do not support; the CommonJS view is type-checked
 * below with `module: node20` instead. Pattern entries are passed expanded.
 */
async function attw(tarball: string, entries: string[]): Promise<AttwReport> {
  const extra = entries.filter((e) => !e.includes("*"));
  // attw exits before a pipe drains (its JSON is cut at 64 KiB when it finds a problem), so its
  // standard output goes to a file, which Node writes synchronously.
  const report = `${tarball}.attw.json`;
  const file = await open(report, "w");
  // A package with no code subpath (@latchkey/cli, a bin) has nothing to add: attw refuses the
  // option without a value, and checks the entries it finds itself.
  const include = extra.length > 0 ? ["--include-entrypoints", ...extra] : [];
  const child = spawn(process.execPath, [bin.attw, tarball, "--profile", "esm-only", "--format", "json", ...include], {
    cwd: root,
    stdio: ["ignore", file.fd, "pipe"],
  });
  let stderr = "";
  child.stderr?.on("data", (chunk) => {
    stderr += chunk;
  });
  const [code] = (await once(child, "exit")) as [number | null];
  await file.close();
  const stdout = await readFile(report, "utf8");
  const outcome: Outcome = { code: code ?? 1, stdout, output: stdout + stderr };
  const json = JSON.parse(outcome.stdout) as {
    problems?: Record<string, { kind: string; entrypoint?: string; resolutionKind?: string }[]>;
  };
  const ignored = new Set(["node10", "node16-cjs"]);
  const problems = Object.values(json.problems ?? {})
    .flat()
    .filter((p) => !p.resolutionKind || !ignored.has(p.resolutionKind))
    .map((p) => `${p.entrypoint ?? "?"} (${p.resolutionKind ?? "any"}): ${p.kind}`);
  return { ...outcome, problems };
}

/** tsc in the scratch project with a generated tsconfig. */
async function typecheck(projectDir: string, name: string, options: Record<string, unknown>, files: string[]) {
  const config = {
    compilerOptions: {
      target: "ES2022",
      lib: ["ES2023"],
      strict: true,
      noEmit: true,
      // As `tsc --init` sets it. Errors inside the published .d.ts (an import that does not
      // resolve) are attw's "internal-resolution-error", checked on every tarball below.
      skipLibCheck: true,
      types: ["node"],
      ...options,
    },
    files,
  };
  await writeFile(join(projectDir, `tsconfig.${name}.json`), JSON.stringify(config, null, 2));
  return exec(process.execPath, [bin.tsc, "-p", `tsconfig.${name}.json`], projectDir);
}

let work: string;
let project: string;
let packages: Pkg[];
const entries = new Map<string, string[]>();

beforeAll(async () => {
  const workspaces = (await readdir(join(root, "packages"))).sort();
  packages = [];
  for (const dir of workspaces) {
    const manifest = await readJson<Manifest>(join(root, "packages", dir, "package.json"));
    if (manifest.private) continue;
    packages.push({ manifest, workspace: `packages/${dir}`, tarball: "", files: [] });
  }
  work = await mkdtemp(join(tmpdir(), "latchkey-packaging-"));
  project = join(work, "project");
  await mkdir(join(work, "pack"));
  await mkdir(project);

  const packed = JSON.parse(
    await npm(
      ["pack", "--json", "--pack-destination", join(work, "pack"), ...packages.flatMap((p) => ["-w", p.workspace])],
      root,
    ),
  ) as { name: string; filename: string; files: { path: string }[] }[];
  for (const p of packages) {
    const tarball = packed.find((t) => t.name === p.manifest.name);
    if (!tarball) throw new Error(`npm pack made no tarball for ${p.manifest.name}`);
    p.tarball = join(work, "pack", tarball.filename);
    p.files = tarball.files.map((f) => f.path);
  }

  const dependencies: Record<string, string> = {};
  for (const p of packages) dependencies[p.manifest.name] = `file:${p.tarball}`;
  for (const name of thirdParty) {
    dependencies[name] = (
      await readJson<{ version: string }>(join(root, "node_modules", name, "package.json"))
    ).version;
  }
  for (const name of linkedThirdParty) dependencies[name] = `file:${join(root, "node_modules", name)}`;
  // The packages depend on each other by version (`@latchkey/core": "0.1.0"`): the override makes
  // npm take the local tarball for every such edge rather than look the version up.
  const overrides = Object.fromEntries(packages.map((p) => [p.manifest.name, `$${p.manifest.name}`]));
  await writeFile(
    join(project, "package.json"),
    JSON.stringify({ name: "latchkey-consumer", private: true, dependencies, overrides }, null, 2),
  );
  await npm(["install", "--no-audit", "--no-fund", "--prefer-offline", "--ignore-scripts"], project);

  for (const p of packages) {
    const installed = join(project, "node_modules", p.manifest.name);
    entries.set(p.manifest.name, await entrypoints(installed, p.manifest));
  }
  for (const file of await readdir(fixtures)) await cp(join(fixtures, file), join(project, file));
}, 240_000 * inject("timeScale"));

afterAll(async () => {
  if (work) await rm(work, { recursive: true, force: true });
});

describe("the packed packages, installed from their tarballs", () => {
  it("installs the tarballs themselves, not a registry copy", async () => {
    const lock = await readJson<{ packages: Record<string, { resolved?: string }> }>(
      join(project, "package-lock.json"),
    );
    for (const p of packages) {
      expect(lock.packages[`node_modules/${p.manifest.name}`]?.resolved, p.manifest.name).toMatch(/^file:.*\.tgz$/);
    }
    expect(packages.map((p) => p.manifest.name)).toEqual(
      expect.arrayContaining([
        "@latchkey/core",
        "@latchkey/express",
        "@latchkey/sql-adapter",
        "@latchkey/redis-adapter",
        "@latchkey/cli",
        "@latchkey/next",
        "@latchkey/hono",
        "@latchkey/fastify",
        "@latchkey/sveltekit",
      ]),
    );
  });

  it("each tarball has its README (install, an example, links), the LICENSE, and the metadata of its registry page (no repository address we do not own)", async () => {
    const license = await readFile(join(root, "LICENSE"), "utf8");
    for (const p of packages) {
      const name = p.manifest.name;
      expect(p.files, name).toEqual(expect.arrayContaining(["README.md", "LICENSE", "package.json"]));
      expect(
        p.files.filter((f) => /^(test|scripts)\/|\.test\.|tsconfig|\.tsbuildinfo$/.test(f)),
        name,
      ).toEqual([]);
      const installed = join(project, "node_modules", name);
      expect(await readFile(join(installed, "LICENSE"), "utf8"), name).toBe(license);
      const readme = await readFile(join(installed, "README.md"), "utf8");
      expect(readme.split("\n")[0], name).toBe(`# ${name}`);
      expect(readme, name).toMatch(/^## Install$/m);
      expect(readme, name).toContain(`npm install ${name.endsWith("/cli") ? "-D " : ""}${name}`);
      expect(readme, name).toMatch(/```(ts|sh)\n[\s\S]+?\n```/);
      expect(readme, name).toMatch(/^## Links$/m);
      const manifest = await readJson<Record<string, unknown>>(join(installed, "package.json"));
      expect(manifest, name).toMatchObject({
        description: expect.stringMatching(/\w{3,}.{20,}/),
        keywords: expect.arrayContaining(["authentication"]),
        license: "MIT",
        engines: { node: ">=20.19" },
      });
      // No public repository address is owned yet: no manifest may point at one it does not own.
      for (const field of ["repository", "homepage", "bugs"])
        expect(manifest, `${name} ${field}`).not.toHaveProperty(field);
    }
  });

  it("@latchkey/cli is a command, not a module: no subpath to import, its bin runs from the install", async () => {
    expect(entries.get("@latchkey/cli")).toEqual([]);
    const latchkey = join(project, "node_modules", ".bin", "latchkey");
    const secret = await exec(latchkey, ["secret", "--raw"], project);
    expect(secret.code, secret.output).toBe(0);
    expect(secret.stdout).toMatch(/^[A-Za-z0-9_-]{43}\n$/);
    // migrate reaches @latchkey/sql-adapter's command (installed as a dependency): its usage.
    const migrate = await exec(latchkey, ["migrate"], project);
    expect(migrate.code).toBe(2);
    expect(migrate.output).toContain("Usage: latchkey migrate <database-url>");
  });

  it("every package's ./package.json loads by name, with import (JSON) and require, as next-auth applications read it", async () => {
    const script = `
      const { createRequire } = require("node:module");
      const load = createRequire(process.cwd() + "/");
      const names = JSON.parse(process.argv[1]);
      (async () => {
        const read = [];
        for (const name of names) {
          const required = load(name + "/package.json");
          const imported = (await import(name + "/package.json", { with: { type: "json" } })).default;
          read.push([required.name, imported.name, typeof imported.version]);
        }
        console.log(JSON.stringify(read));
      })();`;
    const names = packages.map((p) => p.manifest.name);
    const outcome = await exec(process.execPath, ["-e", script, JSON.stringify(names)], project);
    expect(outcome.code, outcome.output).toBe(0);
    expect(JSON.parse(outcome.stdout)).toEqual(names.map((name) => [name, name, "string"]));
  });

  it("every documented subpath loads with import() and with require(), with the same exports", async () => {
    const specifiers = packages.flatMap((p) =>
      (entries.get(p.manifest.name) ?? []).map((e) => specifier(p.manifest.name, e)),
    );
    // The provider patterns expand to every provider of the core, in both packages.
    expect(specifiers).toContain("@latchkey/express/providers/credentials");
    expect(specifiers).toContain("@latchkey/core/providers/github");
    const report = await loadAll(project, specifiers);
    expect(report.failures).toEqual([]);
    expect(report.mismatches).toEqual([]);
    expect(report.names["@latchkey/express"]).toEqual(expect.arrayContaining(["ExpressAuth", "getSession"]));
    expect(report.names["@latchkey/express/jwt"]).toEqual(["decode", "encode", "getToken"]);
    // @latchkey/hono and @latchkey/fastify: the same provider subpaths, their own entry points.
    expect(specifiers).toEqual(
      expect.arrayContaining(["@latchkey/hono/providers/credentials", "@latchkey/fastify/providers/github"]),
    );
    expect(report.names["@latchkey/hono"]).toEqual(
      expect.arrayContaining(["HonoAuth", "getSession", "requireAuth", "session"]),
    );
    expect(report.names["@latchkey/fastify"]).toEqual(expect.arrayContaining(["default", "getSession"]));
    expect(report.names["@latchkey/hono/jwt"]).toEqual(["decode", "encode", "getToken"]);
    expect(report.names["@latchkey/fastify/jwt"]).toEqual(["decode", "encode", "getToken"]);
    // @latchkey/sveltekit loads outside a Vite build too ($env is read at the first request).
    expect(specifiers).toContain("@latchkey/sveltekit/providers/credentials");
    expect(report.names["@latchkey/sveltekit"]).toEqual(
      expect.arrayContaining(["SvelteKitAuth", "CredentialsSignin", "AuthError"]),
    );
    expect(report.names["@latchkey/sveltekit/jwt"]).toEqual(["decode", "encode", "getToken"]);
    // @latchkey/next: the subpaths next-auth has, with its names.
    expect(specifiers).toEqual(
      expect.arrayContaining([
        "@latchkey/next/react",
        "@latchkey/next/webauthn",
        "@latchkey/next/jwt",
        "@latchkey/next/adapters",
        "@latchkey/next/providers/credentials",
        "@latchkey/next/providers/github",
      ]),
    );
    expect(report.names["@latchkey/next"]).toEqual(
      expect.arrayContaining(["AuthError", "CredentialsSignin", "NextAuth", "default"]),
    );
    expect(report.names["@latchkey/next/react"]).toEqual(
      expect.arrayContaining([
        "SessionProvider",
        "getCsrfToken",
        "getProviders",
        "getSession",
        "signIn",
        "signOut",
        "useSession",
      ]),
    );
    expect(report.names["@latchkey/next/jwt"]).toEqual(["decode", "encode", "getToken"]);
    // Latchkey's own subpath: password accounts in Server Actions.
    expect(report.names["@latchkey/next/accounts"]).toEqual([
      "MemoryPasswordStore",
      "PasswordAccounts",
      "authorizePassword",
    ]);
    // The JWE helpers are internal: the public token entry offers encode/decode/getToken only.
    expect(report.names["@latchkey/core/jwt"]).toEqual(["decode", "encode", "getToken"]);
  });

  it(
    "a consumer type-checks against the published .d.ts: node16, bundler, and CommonJS (node20)",
    async () => {
      const specifiers = packages.flatMap((p) =>
        (entries.get(p.manifest.name) ?? []).map((e) => specifier(p.manifest.name, e)),
      );
      // One namespace import per subpath: an entry without types fails here (implicit any).
      await writeFile(
        join(project, "subpaths.mts"),
        `${specifiers.map((s, i) => `import * as m${i} from "${s}";`).join("\n")}\nexport const all = [${specifiers.map((_, i) => `m${i}`).join(", ")}];\n`,
      );
      const esm = ["consumer.mts", "next-consumer.mts", "frameworks-consumer.mts", "subpaths.mts"];
      const [node16, bundler, commonjs] = await Promise.all([
        typecheck(project, "node16", { module: "node16", moduleResolution: "node16" }, esm),
        typecheck(project, "bundler", { module: "esnext", moduleResolution: "bundler" }, esm),
        typecheck(project, "cjs", { module: "node20", moduleResolution: "node16" }, ["consumer.cts"]),
      ]);
      for (const outcome of [node16, bundler, commonjs]) {
        expect(outcome.output).toBe("");
        expect(outcome.code).toBe(0);
      }
    },
    300_000 * inject("timeScale"),
  );

  it("@latchkey/next exports its package.json, as next-auth does (applications import it)", async () => {
    const script = `import pkg from "@latchkey/next/package.json" with { type: "json" };
import { createRequire } from "node:module";
const fromRequire = createRequire(import.meta.url)("@latchkey/next/package.json");
process.stdout.write(JSON.stringify([pkg.name, fromRequire.version]));`;
    await writeFile(join(project, "package-json.mjs"), script);
    const outcome = await exec(process.execPath, ["package-json.mjs"], project);
    expect(outcome.output).toBe(JSON.stringify(["@latchkey/next", "0.1.0"]));
  });

  it(
    "publint finds nothing to report in any tarball",
    async () => {
      const outcomes = await Promise.all(packages.map((p) => publint(p.tarball)));
      packages.forEach((p, i) => {
        const outcome = outcomes[i] as Outcome;
        expect(outcome.code, `${p.manifest.name}:\n${outcome.output}`).toBe(0);
        expect(outcome.output, p.manifest.name).toContain("All good!");
      });
    },
    120_000 * inject("timeScale"),
  );

  it(
    "@arethetypeswrong/cli finds no problem in any tarball (esm-only profile)",
    async () => {
      const reports = await Promise.all(packages.map((p) => attw(p.tarball, entries.get(p.manifest.name) ?? [])));
      packages.forEach((p, i) => {
        const report = reports[i] as AttwReport;
        expect(report.problems, p.manifest.name).toEqual([]);
        expect(report.code, `${p.manifest.name}:\n${report.output.slice(0, 2000)}`).toBe(0);
      });
    },
    300_000 * inject("timeScale"),
  );

  it("a CommonJS Express application require()s Latchkey and signs in with credentials", async () => {
    const password = randomBytes(12).toString("base64url");
    const child = spawn(process.execPath, ["app.cjs"], {
      cwd: project,
      env: { ...process.env, AUTH_SECRET: randomBytes(32).toString("base64url"), APP_PASSWORD: password },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stderr = "";
    child.stderr?.on("data", (chunk) => {
      stderr += chunk;
    });
    try {
      const base = `http://127.0.0.1:${await listeningPort(child, () => stderr)}`;
      const signIn = async (pass: string) => {
        const csrf = await fetch(`${base}/auth/csrf`);
        const { csrfToken } = (await csrf.json()) as { csrfToken: string };
        const jar = cookies(csrf.headers.getSetCookie());
        const callback = await fetch(`${base}/auth/callback/credentials`, {
          method: "POST",
          redirect: "manual",
          headers: { "content-type": "application/x-www-form-urlencoded", cookie: jar },
          body: new URLSearchParams({ csrfToken, username: "ada", password: pass, callbackUrl: `${base}/me` }),
        });
        return { callback, jar: [jar, cookies(callback.headers.getSetCookie())].filter(Boolean).join("; ") };
      };

      const refused = await signIn(`${password}x`);
      expect(refused.callback.status).toBe(302);
      expect(refused.callback.headers.get("location")).toContain("error=CredentialsSignin");
      expect(refused.jar).not.toContain("authjs.session-token=");

      const { callback, jar } = await signIn(password);
      expect(callback.status).toBe(302);
      expect(callback.headers.get("location")).toBe(`${base}/me`);
      expect(jar).toContain("authjs.session-token=");

      const session = (await (await fetch(`${base}/auth/session`, { headers: { cookie: jar } })).json()) as {
        user?: Record<string, unknown>;
        expires?: string;
      };
      expect(session.user).toEqual({ name: "Ada Lovelace", email: "ada@example.com" });
      expect(Date.parse(session.expires ?? "")).toBeGreaterThan(Date.now());

      const me = (await (await fetch(`${base}/me`, { headers: { cookie: jar } })).json()) as {
        session: { user?: unknown } | null;
        module: string;
        require: string;
      };
      expect(me).toEqual({
        session: { user: session.user, expires: expect.any(String) },
        module: "object",
        require: "function",
      });
      const anonymous = (await (await fetch(`${base}/me`)).json()) as { session: unknown };
      expect(anonymous.session).toBeNull();
    } finally {
      const exited = once(child, "exit");
      child.kill("SIGTERM");
      await exited;
    }
  });
});

describe("the checks catch a broken exports entry", () => {
  it(
    "a copy of @latchkey/express whose ./jwt points to a missing file fails every check, naming ./jwt",
    async () => {
      const name = "@latchkey/broken-express";
      const copy = join(project, "node_modules", name);
      await cp(join(project, "node_modules/@latchkey/express"), copy, { recursive: true });
      const manifest = await readJson<Manifest>(join(copy, "package.json"));
      manifest.name = name;
      manifest.exports["./jwt"] = { types: "./dist/jwt-moved.d.ts", default: "./dist/jwt-moved.js" };
      await writeFile(join(copy, "package.json"), JSON.stringify(manifest, null, 2));

      const specifiers = (await entrypoints(copy, manifest)).map((e) => specifier(name, e));
      const report = await loadAll(project, specifiers);
      expect(report.failures).toEqual([
        expect.stringMatching(/^import\(@latchkey\/broken-express\/jwt\): ERR_MODULE_NOT_FOUND/),
        expect.stringMatching(/^require\(@latchkey\/broken-express\/jwt\): MODULE_NOT_FOUND/),
      ]);

      const packed = JSON.parse(await npm(["pack", "--json", "--pack-destination", work, copy], work)) as {
        filename: string;
      }[];
      const tarball = join(work, packed[0]?.filename ?? "");
      const lint = await publint(tarball);
      expect(lint.code).not.toBe(0);
      expect(lint.output).toContain('pkg.exports["./jwt"].types is ./dist/jwt-moved.d.ts but the file does not exist');
      expect(lint.output).toContain('pkg.exports["./jwt"].default is ./dist/jwt-moved.js but the file does not exist');
      // publint numbers its messages: these two and nothing else.
      expect(lint.output.split("\n").filter((line) => /^\d+\. /.test(line))).toHaveLength(2);

      // The entries as declared (attw's own discovery), not the 61 expanded providers: the broken
      // entry is ./jwt, and the expanded ones are checked on the real package above.
      const types = await attw(tarball, Object.keys(manifest.exports));
      expect(types.code).not.toBe(0);
      expect(types.problems).toEqual(
        expect.arrayContaining(["./jwt (node16-esm): NoResolution", "./jwt (bundler): NoResolution"]),
      );
      expect(types.problems.every((p) => p.startsWith("./jwt "))).toBe(true);

      await writeFile(join(project, "broken.mts"), `import { getToken } from "${name}/jwt";\nvoid getToken;\n`);
      const typed = await typecheck(project, "broken", { module: "node16", moduleResolution: "node16" }, [
        "broken.mts",
      ]);
      expect(typed.code).not.toBe(0);
      expect(typed.output).toContain(`'${name}/jwt'`);
    },
    120_000 * inject("timeScale"),
  );
});

/** The port the application prints once it listens; rejects if it exits first. */
async function listeningPort(child: ChildProcess, stderr: () => string): Promise<number> {
  const lines = createInterface({ input: child.stdout as NodeJS.ReadableStream });
  const exited = once(child, "exit").then(([code]) => {
    throw new Error(`app.cjs exited with ${code} before listening:\n${stderr()}`);
  });
  // Only the race below reports an early exit; the exit after the test kills the app is expected.
  exited.catch(() => {});
  const listening = (async () => {
    for await (const line of lines) {
      const match = /^listening (\d+)$/.exec(line);
      if (match) return Number(match[1]);
    }
    throw new Error(`app.cjs closed its output without listening:\n${stderr()}`);
  })();
  return Promise.race([listening, exited]);
}

/** `name=value` pairs of Set-Cookie headers, as a Cookie header. */
function cookies(setCookie: string[]): string {
  return setCookie.map((c) => c.split(";")[0]).join("; ");
}
