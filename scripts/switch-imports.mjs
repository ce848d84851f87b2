#!/usr/bin/env node
// Moves a next-auth v5 / Auth.js application to Latchkey by its imports alone:
//   node scripts/switch-imports.mjs <app-folder> [--next <spec>] [--core <spec>]
// rewrites every module specifier (`import`, `export … from`, `import()`, `require()`,
// `declare module`) of `next-auth[/…]` to `@latchkey/next[/…]` and of `@auth/core[/…]` to
// `@latchkey/core[/…]` in the application's source files (node_modules, .next and dist are left
// alone), and in package.json replaces the `next-auth` and `@auth/core` dependencies with
// `@latchkey/next` and `@latchkey/core` (at the given npm specs, e.g. a version or a packed
// tarball's `file:` path). Auth.js adapters (`@auth/prisma-adapter`, …) are kept: Latchkey runs them.
import { readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const SOURCE = /\.(?:[cm]?[jt]sx?)$/;
const SKIP = new Set(["node_modules", ".next", "dist", ".git", ".turbo"]);
// A quoted specifier right after one of the forms that name a module.
const SPECIFIER =
  /((?:\bfrom|\bimport|\bimport\s*\(|\brequire\s*\(|\bdeclare\s+module)\s*)(["'])(next-auth|@auth\/core)((?:\/[^"']*)?)\2/g;

/** The Latchkey package that stands for `name` (`next-auth` or `@auth/core`). */
const latchkeyOf = (name) => (name === "next-auth" ? "@latchkey/next" : "@latchkey/core");

/** The text of one source file with its next-auth and @auth/core specifiers switched. */
export function switchSource(text) {
  return text.replace(SPECIFIER, (_, head, quote, name, rest) => `${head}${quote}${latchkeyOf(name)}${rest}${quote}`);
}

function* sourceFiles(folder) {
  for (const entry of readdirSync(folder)) {
    if (SKIP.has(entry)) continue;
    const path = join(folder, entry);
    if (statSync(path).isDirectory()) yield* sourceFiles(path);
    else if (SOURCE.test(entry)) yield path;
  }
}

/**
 * Switches the application in `folder`; returns the files it changed. `specs` are the
 * dependency specs written into package.json for `@latchkey/next` and `@latchkey/core`.
 */
export function switchApplication(folder, specs = { next: "^0.1.0", core: "^0.1.0" }) {
  const changed = [];
  for (const file of sourceFiles(folder)) {
    const text = readFileSync(file, "utf8");
    const switched = switchSource(text);
    if (switched !== text) {
      writeFileSync(file, switched);
      changed.push(file);
    }
  }
  const manifestPath = join(folder, "package.json");
  const manifest = JSON.parse(readFileSync(manifestPath, "utf8"));
  for (const field of ["dependencies", "devDependencies"]) {
    const deps = manifest[field];
    if (!deps) continue;
    if ("next-auth" in deps) {
      delete deps["next-auth"];
      deps["@latchkey/next"] = specs.next;
    }
    if ("@auth/core" in deps) {
      delete deps["@auth/core"];
      deps["@latchkey/core"] = specs.core;
    }
  }
  // @latchkey/next names its core; an application that lists it too gets the same one.
  if (manifest.dependencies?.["@latchkey/next"] && !manifest.dependencies["@latchkey/core"])
    manifest.dependencies["@latchkey/core"] = specs.core;
  writeFileSync(manifestPath, `${JSON.stringify(manifest, null, 2)}\n`);
  changed.push(manifestPath);
  return changed;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const [folder, ...rest] = process.argv.slice(2);
  if (!folder) {
    console.error("usage: node scripts/switch-imports.mjs <app-folder> [--next <spec>] [--core <spec>]");
    process.exit(2);
  }
  const option = (name, fallback) => {
    const at = rest.indexOf(`--${name}`);
    return at >= 0 && rest[at + 1] ? rest[at + 1] : fallback;
  };
  const changed = switchApplication(folder, { next: option("next", "^0.1.0"), core: option("core", "^0.1.0") });
  for (const file of changed) console.log(`switched ${file}`);
}
