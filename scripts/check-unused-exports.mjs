#!/usr/bin/env node
// Finds exports nothing imports: in each workspace's sources (packages/*/src, examples/*/src) and
// in the test helpers beside them. An export is used when a file imports it (tests, the bench and
// scripts count as users), or when it is reachable from a package's public entry points (the
// `exports` and `bin` of its package.json): public API is used by definition. Re-exports
// (`export { x } from`, `export *`, `export * as ns`) pass the use on; `import * as ns` and
// `import()` use every export of the module. Only relative specifiers are followed: a package
// reaches another through its public name, which is an entry point already. An exported type
// that another declaration of its file names (the options of an exported function) is part of that
// declaration's surface and is not reported.
//
// Usage: node scripts/check-unused-exports.mjs
// Prints each unused export with its file and line, and exits 1 if there is one. An export kept
// on purpose goes in ALLOWED below with its reason.
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";

/** `file:name` → why the export stays although nothing imports it. */
export const ALLOWED = new Map([
  [
    "examples/hono-demo/src/worker.ts:default",
    "the demo as a Cloudflare Worker: wrangler (a wrangler.json whose main is this file) and test/runtimes call its fetch",
  ],
]);

const SOURCE = /\.(ts|mts|js|mjs)$/;

/** Every source file under `dir`, without node_modules, dist and declaration files. */
function filesUnder(dir) {
  if (!existsSync(dir)) return [];
  const found = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) {
      if (!["node_modules", "dist", "fixtures"].includes(entry.name)) found.push(...filesUnder(path));
    } else if (SOURCE.test(entry.name) && !/\.d\.m?ts$/.test(entry.name)) {
      found.push(path);
    }
  }
  return found;
}

/** A specifier's file: `./x.js` is `x.ts` in the sources; a path into a package's dist is its source. */
function resolveSpecifier(from, specifier) {
  // SvelteKit's `$lib` is the `src/lib` folder of the app the importing file is in.
  const lib = /^\$lib(\/.*)?$/.exec(specifier);
  const app = lib ? from.lastIndexOf(`${sep}src${sep}`) : -1;
  if (!specifier.startsWith(".") && app < 0) return null;
  let target = app >= 0 ? join(from.slice(0, app), "src", "lib", lib?.[1] ?? "") : resolve(dirname(from), specifier);
  target = target.replace(`${sep}dist${sep}`, `${sep}src${sep}`);
  const stem = target.replace(/\.(js|mjs|ts|mts)$/, "");
  for (const candidate of [
    target,
    `${stem}.ts`,
    `${stem}.mts`,
    `${stem}.js`,
    `${stem}.mjs`,
    join(target, "index.ts"),
  ]) {
    if (existsSync(candidate) && SOURCE.test(candidate)) return candidate;
  }
  return null;
}

/**
 * Every file a specifier may load: one for a relative specifier; for a package import (`#platform`,
 * the package.json `"imports"` of the importing file's package), each file its conditions name
 * (the Node.js and the Web implementation and their declarations alike use the names imported).
 */
function resolveAll(from, specifier) {
  if (!specifier.startsWith("#")) {
    const one = resolveSpecifier(from, specifier);
    return one ? [one] : [];
  }
  let dir = dirname(from);
  while (!existsSync(join(dir, "package.json")) && dirname(dir) !== dir) dir = dirname(dir);
  const targets = [];
  const walk = (value) => {
    if (typeof value === "string") targets.push(value);
    else if (value && typeof value === "object") for (const inner of Object.values(value)) walk(inner);
  };
  walk(JSON.parse(readFileSync(join(dir, "package.json"), "utf8")).imports?.[specifier]);
  return [
    ...new Set(
      targets
        .map((target) =>
          resolveSpecifier(join(dir, "package.json"), `./${target.replace(/^\.\//, "").replace(/\.d\.ts$/, ".js")}`),
        )
        .filter(Boolean),
    ),
  ];
}

const hasExport = (node) => ts.getCombinedModifierFlags(node) & ts.ModifierFlags.Export;
const hasDefault = (node) => ts.getCombinedModifierFlags(node) & ts.ModifierFlags.Default;

/**
 * One file's module surface: its own exports (name → line), its re-exports, its `export *`
 * sources, and what it imports from other files.
 */
export function moduleOf(path, text) {
  const file = ts.createSourceFile(path, text, ts.ScriptTarget.Latest, true);
  const line = (node) => file.getLineAndCharacterOfPosition(node.getStart(file)).line + 1;
  const own = new Map();
  const reexports = new Map(); // exported name → { from, name }
  const stars = [];
  const uses = []; // { from, name } ; name "*" for every export
  const types = new Set();
  for (const statement of file.statements) {
    if (ts.isExportDeclaration(statement)) {
      const from = statement.moduleSpecifier && resolveSpecifier(path, statement.moduleSpecifier.text);
      const clause = statement.exportClause;
      if (!statement.moduleSpecifier) {
        for (const element of clause?.elements ?? []) own.set(element.name.text, line(element));
      } else if (!clause) {
        if (from) stars.push(from);
      } else if (ts.isNamespaceExport(clause)) {
        if (from) reexports.set(clause.name.text, { from, name: "*", line: line(clause) });
      } else {
        for (const element of clause.elements) {
          const name = (element.propertyName ?? element.name).text;
          if (from) reexports.set(element.name.text, { from, name, line: line(element) });
        }
      }
      continue;
    }
    if (ts.isExportAssignment(statement)) {
      own.set("default", line(statement));
      continue;
    }
    if (ts.isVariableStatement(statement) && hasExport(statement)) {
      for (const declaration of statement.declarationList.declarations) {
        const names = [];
        const collect = (name) => {
          if (ts.isIdentifier(name)) names.push(name.text);
          else for (const element of name.elements) if (!ts.isOmittedExpression(element)) collect(element.name);
        };
        collect(declaration.name);
        for (const name of names) own.set(name, line(declaration));
      }
      continue;
    }
    if (
      (ts.isFunctionDeclaration(statement) ||
        ts.isClassDeclaration(statement) ||
        ts.isInterfaceDeclaration(statement) ||
        ts.isTypeAliasDeclaration(statement) ||
        ts.isEnumDeclaration(statement) ||
        ts.isModuleDeclaration(statement)) &&
      hasExport(statement)
    ) {
      own.set(hasDefault(statement) ? "default" : (statement.name?.text ?? "default"), line(statement));
      if ((ts.isInterfaceDeclaration(statement) || ts.isTypeAliasDeclaration(statement)) && statement.name) {
        types.add(statement.name.text);
      }
    }
  }
  // a type named by another declaration of its file is part of that declaration's signature
  const named = new Map();
  const count = (node) => {
    if (ts.isIdentifier(node)) named.set(node.text, (named.get(node.text) ?? 0) + 1);
    ts.forEachChild(node, count);
  };
  count(file);
  const signatureTypes = new Set([...types].filter((name) => (named.get(name) ?? 0) > 1));
  const visit = (node) => {
    if (ts.isImportDeclaration(node) && ts.isStringLiteral(node.moduleSpecifier)) {
      for (const from of resolveAll(path, node.moduleSpecifier.text)) {
        const clause = node.importClause;
        if (!clause) uses.push({ from, name: "*" }); // a side-effect import runs the module
        if (clause) {
          if (clause.name) uses.push({ from, name: "default" });
          const bindings = clause.namedBindings;
          if (bindings && ts.isNamespaceImport(bindings)) uses.push({ from, name: "*" });
          if (bindings && ts.isNamedImports(bindings)) {
            for (const element of bindings.elements)
              uses.push({ from, name: (element.propertyName ?? element.name).text });
          }
        }
      }
    } else if (
      ts.isCallExpression(node) &&
      node.expression.kind === ts.SyntaxKind.ImportKeyword &&
      node.arguments[0] &&
      ts.isStringLiteralLike(node.arguments[0])
    ) {
      const from = resolveSpecifier(path, node.arguments[0].text);
      if (from) uses.push({ from, name: "*" });
    } else if (
      ts.isImportTypeNode(node) &&
      ts.isLiteralTypeNode(node.argument) &&
      ts.isStringLiteral(node.argument.literal)
    ) {
      const from = resolveSpecifier(path, node.argument.literal.text);
      const name = node.qualifier && ts.isIdentifier(node.qualifier) ? node.qualifier.text : "*";
      if (from) uses.push({ from, name });
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
  return { own, reexports, stars, uses, signatureTypes };
}

/** The source files a package's `exports` and `bin` name (wildcards expanded). */
function entryPoints(packageDir) {
  const manifest = JSON.parse(readFileSync(join(packageDir, "package.json"), "utf8"));
  const targets = [];
  const walk = (value) => {
    if (typeof value === "string") targets.push(value);
    else if (value && typeof value === "object") for (const inner of Object.values(value)) walk(inner);
  };
  walk(manifest.exports);
  walk(manifest.bin);
  walk(manifest.main);
  // A SvelteKit app: the framework loads its hooks and every `+page`/`+server` module of `src/routes`.
  const sveltekit = existsSync(join(packageDir, "svelte.config.js"))
    ? filesUnder(join(packageDir, "src")).filter((file) =>
        /[\\/](hooks\.server\.ts|\+[^\\/]+\.ts)$/.test(file.slice(packageDir.length)),
      )
    : [];
  const start = manifest.scripts?.start?.match(/node\s+(\S+\.m?js)/);
  if (start) targets.push(start[1]);
  const entries = [...sveltekit];
  for (const target of targets) {
    if (!/\.m?js$/.test(target) || !target.includes("dist/")) continue;
    const source = join(
      packageDir,
      target
        .replace(/^\.\//, "")
        .replace(/^dist\//, "src/")
        .replace(/\.(m?)js$/, ".$1ts"),
    );
    if (source.includes("*")) {
      const [before, after] = source.split("*");
      for (const file of filesUnder(dirname(before))) {
        if (file.startsWith(before) && file.endsWith(after)) entries.push(file);
      }
    } else if (existsSync(source)) {
      entries.push(source);
    }
  }
  return entries;
}

/** Every unused export of the repository at `root`: `{ file, name, line }`, sorted. */
export function unusedExports(root) {
  const workspaces = ["packages", "examples"].flatMap((folder) =>
    readdirSync(join(root, folder), { withFileTypes: true })
      .filter((entry) => entry.isDirectory() && existsSync(join(root, folder, entry.name, "package.json")))
      .map((entry) => join(root, folder, entry.name)),
  );
  const users = [
    ...workspaces.flatMap((dir) => [
      ...filesUnder(join(dir, "src")),
      ...filesUnder(join(dir, "test")),
      ...filesUnder(join(dir, "scripts")),
    ]),
    ...filesUnder(join(root, "test")),
    ...filesUnder(join(root, "bench")),
    ...filesUnder(join(root, "scripts")),
  ];
  const modules = new Map(users.map((file) => [file, moduleOf(file, readFileSync(file, "utf8"))]));
  const used = new Set(); // `${file}\0${name}`
  const queue = [];
  const use = (file, name) => {
    const key = `${file}\0${name}`;
    if (used.has(key)) return;
    used.add(key);
    queue.push([file, name]);
  };
  for (const dir of workspaces) for (const entry of entryPoints(dir)) use(entry, "*");
  for (const module of modules.values()) for (const { from, name } of module.uses) use(from, name);
  while (queue.length > 0) {
    const [file, name] = queue.pop();
    const module = modules.get(file);
    if (!module) continue;
    if (name === "*") {
      for (const [exported, target] of module.reexports) {
        use(file, exported);
        use(target.from, target.name);
      }
      for (const from of module.stars) use(from, "*");
      continue;
    }
    const target = module.reexports.get(name);
    if (target) use(target.from, target.name);
    else if (!module.own.has(name)) for (const from of module.stars) use(from, name);
  }
  // A wing's face (packages/core/src/lib/<wing>/index.ts) offers what the other wings take from the
  // files that define it (a face imported inside lib/ would tie the wings into cycles), so its
  // re-exports have no importer of their own: test/structure/faces.ts checks instead that a face
  // offers nothing no file outside its wing uses.
  const isFace = (path) => /^packages\/core\/src\/lib\/[^/]+\/index\.ts$/.test(path);
  const isReported = (file) => {
    const path = relative(root, file).split(sep).join("/");
    return (
      /^(packages|examples)\/[^/]+\/(src|test)\//.test(path) &&
      !/\.test\.ts$/.test(path) &&
      /\.ts$/.test(path) &&
      !isFace(path)
    );
  };
  const unused = [];
  for (const [file, module] of modules) {
    if (!isReported(file)) continue;
    const all = used.has(`${file}\0*`);
    const exports = [...module.own, ...[...module.reexports].map(([name, target]) => [name, target.line])];
    for (const [name, line] of exports) {
      if (all || used.has(`${file}\0${name}`) || module.signatureTypes.has(name)) continue;
      unused.push({ file: relative(root, file).split(sep).join("/"), name, line });
    }
  }
  return unused.sort((a, b) => a.file.localeCompare(b.file) || a.line - b.line);
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const root = join(dirname(fileURLToPath(import.meta.url)), "..");
  const found = unusedExports(root);
  const unused = found.filter((u) => !ALLOWED.has(`${u.file}:${u.name}`));
  const stale = [...ALLOWED.keys()].filter((key) => !found.some((u) => `${u.file}:${u.name}` === key));
  for (const u of unused) console.error(`${u.file}:${u.line}  ${u.name}`);
  for (const key of stale) console.error(`ALLOWED names ${key}, which is no longer an unused export: remove it`);
  if (unused.length + stale.length > 0) {
    console.error(
      `unused exports: ${unused.length} export(s) nothing imports. Remove the export (or the code), ` +
        "or list it in ALLOWED in scripts/check-unused-exports.mjs with the reason it stays.",
    );
    process.exit(1);
  }
  console.log(`unused exports: none (${ALLOWED.size} kept on purpose, each with its reason)`);
}
