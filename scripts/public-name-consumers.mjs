#!/usr/bin/env node
// Decides, for every public name of @latchkey/core (each (subpath, name) pair that
// `scripts/count-public-names.mjs --list` prints), whether it keeps its place in the public face.
// The rule (issue 35.3: a public name stays only when something needs it):
//
// KEEP a pair when at least one of these holds; each is a reason the script prints:
//   authjs     Auth.js exports the same name from the matching module: @auth/core's subpath of the
//              same name (".", "./jwt", "./errors", "./types", "./adapters", "./providers"), so
//              code moving from Auth.js finds it where it was;
//   spec       the name stands, as a whole word, in spec/auth-service-interface.md;
//   signature  it is a type in the declared type of another kept export (a parameter, a result,
//              written or inferred, a field, a base class, at any depth): a type in a public
//              signature must stay nameable; it stays in the subpath of the signature when that
//              subpath exports it, else in every subpath that exports it;
//   import     a file outside core's sources and tests imports it from that subpath: another
//              package's sources, an example, a bench, a code block of a README or of docs/, or
//              an import from a framework package's module that passes core's subpath on
//              (`export * from "@latchkey/core/errors"`);
//   test       a test imports it from that subpath (core's own tests through `../src/<subpath>.js`);
//   docs       a README or a page of docs/ names it in backticks (docs/architecture.md, the map of
//              the code, names what exists and is not counted).
// REMOVE the rest from the faces (the names stay in lib/, where the library uses them).
//
// Usage: node scripts/public-name-consumers.mjs [--remove | --keep] [--spec <file>]
//   (no flag: the counts; --remove: the pairs to remove, by subpath; --keep: every kept pair and why)
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { join, posix } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";
import { publicModules } from "./count-public-names.mjs";

const root = fileURLToPath(new URL("..", import.meta.url));
const specAt = process.argv.indexOf("--spec");
// The interface lives beside the repository (spec/ of the team's shared folder), not in it.
const SPEC = specAt > 0 ? process.argv[specAt + 1] : join(root, "../shared/spec/auth-service-interface.md");
if (!existsSync(SPEC)) throw new Error(`${SPEC}: the interface's text was not found; pass its path with --spec <file>`);
const AUTHJS_SUBPATHS = new Set([".", "./jwt", "./errors", "./types", "./adapters", "./providers"]);
const FRAMEWORKS = ["express", "fastify", "hono", "next", "sveltekit"];
const mode = process.argv.find((a) => a === "--remove" || a === "--keep");

const { modules, checker } = publicModules(["core", ...FRAMEWORKS]);
const core = modules[0];
const resolved = (symbol) => (symbol.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(symbol) : symbol);

/** @type {Map<string, Map<string, Set<string>>>} subpath → name → reasons */
const reasons = new Map(core.subpaths.map((s) => [s.subpath, new Map(s.exports.map((e) => [e.name, new Set()]))]));
const keep = (subpath, name, why) => reasons.get(subpath)?.get(name)?.add(why);

// authjs: the names of @auth/core's module of the same subpath, read from its declarations.
const authjsRoot = join(root, "node_modules/@auth/core");
const authjsExports = JSON.parse(readFileSync(join(authjsRoot, "package.json"), "utf8")).exports;
const authjsFiles = [...AUTHJS_SUBPATHS].map((subpath) => [subpath, join(authjsRoot, authjsExports[subpath].types)]);
const authjs = ts.createProgram(
  authjsFiles.map(([, file]) => file),
  {
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    noEmit: true,
    skipLibCheck: true,
  },
);
for (const [subpath, file] of authjsFiles) {
  const source = authjs.getSourceFile(file);
  const symbol = source && authjs.getTypeChecker().getSymbolAtLocation(source);
  if (!symbol) throw new Error(`${file}: @auth/core's module was not read (is @auth/core installed?)`);
  for (const e of authjs.getTypeChecker().getExportsOfModule(symbol)) keep(subpath, e.name, "authjs");
}

// spec: whole words of the interface the library implements.
const spec = new Set(readFileSync(SPEC, "utf8").match(/[A-Za-z_$][\w$]*/g));
for (const [subpath, names] of reasons)
  for (const name of names.keys()) if (spec.has(name)) keep(subpath, name, "spec");

// import and docs: every file git knows outside core's sources.
const files = execFileSync("git", ["ls-files", "--cached", "--others", "--exclude-standard"], {
  cwd: root,
  encoding: "utf8",
})
  .split("\n")
  .filter(
    (f) => /\.(m?[jt]sx?|svelte|md)$/.test(f) && !f.startsWith("packages/core/src/") && existsSync(join(root, f)),
  );

/**
 * What a framework package's subpath passes on from core, by its specifier and by its source file:
 * "@latchkey/express" and "packages/express/src/index" → ["./errors", "./types"].
 */
const passedOn = new Map();
for (const framework of modules.slice(1)) {
  for (const { subpath, file } of framework.subpaths) {
    const specifier = `@latchkey/${framework.name}${subpath === "." ? "" : subpath.slice(1)}`;
    const text = readFileSync(file, "utf8");
    const stars = [...text.matchAll(/export (?:type )?\* from "@latchkey\/core(\/[\w-]+)?"/g)].map(
      (m) => `.${m[1] ?? ""}`,
    );
    passedOn.set(specifier, stars);
    passedOn.set(posix.relative(root, file).replace(/\.ts$/, ""), stars); // its tests import ../src/<module>.js
  }
}

/** The core subpaths a module specifier written in `file` names: a package name, or a relative path into core's src/. */
function coreSubpathsOf(specifier, file) {
  if (specifier === "@latchkey/core") return ["."];
  if (specifier.startsWith("@latchkey/core/")) return [`.${specifier.slice("@latchkey/core".length)}`];
  if (passedOn.has(specifier)) return passedOn.get(specifier);
  if (!specifier.startsWith(".")) return [];
  const target = posix.normalize(posix.join(posix.dirname(file), specifier));
  const framework = passedOn.get(target.replace(/\.[jt]s$/, "").replace(/\/dist\//, "/src/"));
  if (framework) return framework;
  const match = /^packages\/core\/(?:src|dist)\/([\w-]+)(?:\.[jt]s)?$/.exec(target);
  if (!match) return [];
  return [match[1] === "index" ? "." : `./${match[1]}`];
}

/** Every (specifier, names) a piece of code imports or re-exports by name, `import("x").Name` included. */
function importsOf(text, fileName) {
  const source = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TSX);
  const found = [];
  const visit = (node) => {
    if (
      (ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) &&
      node.moduleSpecifier &&
      ts.isStringLiteral(node.moduleSpecifier)
    ) {
      const bindings = ts.isImportDeclaration(node) ? node.importClause?.namedBindings : node.exportClause;
      const names =
        bindings && (ts.isNamedImports(bindings) || ts.isNamedExports(bindings))
          ? bindings.elements.map((e) => (e.propertyName ?? e.name).text)
          : [];
      if (ts.isImportDeclaration(node) && node.importClause?.name) names.push("default");
      found.push([node.moduleSpecifier.text, names]);
    } else if (
      ts.isImportTypeNode(node) &&
      ts.isLiteralTypeNode(node.argument) &&
      ts.isStringLiteral(node.argument.literal)
    ) {
      const first = node.qualifier?.getText(source).split(".")[0];
      if (first) found.push([node.argument.literal.text, [first]]);
    } else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) {
      const [argument] = node.arguments;
      let up = node.parent;
      if (up && ts.isAwaitExpression(up)) up = up.parent;
      const names =
        up && ts.isVariableDeclaration(up) && ts.isObjectBindingPattern(up.name)
          ? up.name.elements.map((e) => (e.propertyName ?? e.name).getText(source))
          : up && ts.isParenthesizedExpression(up) && ts.isPropertyAccessExpression(up.parent)
            ? [up.parent.name.text]
            : [];
      if (argument && ts.isStringLiteralLike(argument)) found.push([argument.text, names]);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

for (const file of files) {
  const text = readFileSync(join(root, file), "utf8");
  const pieces = [];
  if (file.endsWith(".md")) {
    for (const block of text.matchAll(/```(?:ts|js|tsx|typescript|javascript|svelte)?\n([\s\S]*?)```/g))
      pieces.push(block[1]);
    const documentation =
      !file.endsWith("docs/architecture.md") && (file.startsWith("docs/") || /(^|\/)README\.md$/.test(file));
    if (documentation) {
      for (const [, name] of text.matchAll(/`([A-Za-z_$][\w$]*)`/g)) {
        for (const [subpath, names] of reasons) if (names.has(name)) keep(subpath, name, "docs");
      }
    }
  } else if (file.endsWith(".svelte")) {
    for (const block of text.matchAll(/<script[^>]*>([\s\S]*?)<\/script>/g)) pieces.push(block[1]);
  } else {
    pieces.push(text);
  }
  for (const piece of pieces) {
    for (const [specifier, names] of importsOf(piece, file)) {
      const why = /(^|\/)(test|tests)\//.test(file) ? "test" : "import";
      for (const subpath of coreSubpathsOf(specifier, file)) for (const name of names) keep(subpath, name, why);
    }
  }
}

/**
 * Every named type an inferred type holds (what the .d.ts writes for a declaration without a
 * written type): aliases and interfaces are handed to `reach`, which reads their declarations;
 * anonymous object types are opened here, their members and signatures followed.
 */
function inferred(type, reach, seen = new Set()) {
  if (seen.has(type)) return;
  seen.add(type);
  if (type.aliasSymbol) {
    reach(type.aliasSymbol);
    for (const argument of type.aliasTypeArguments ?? []) inferred(argument, reach, seen);
    return;
  }
  if (type.isUnionOrIntersection()) {
    for (const member of type.types) inferred(member, reach, seen);
    return;
  }
  if (!(type.flags & ts.TypeFlags.Object)) return;
  if (type.objectFlags & ts.ObjectFlags.Reference) {
    for (const argument of checker.getTypeArguments(type)) inferred(argument, reach, seen);
  }
  const symbol = type.symbol;
  if (
    symbol &&
    !(
      symbol.flags &
      (ts.SymbolFlags.TypeLiteral | ts.SymbolFlags.ObjectLiteral | ts.SymbolFlags.Function | ts.SymbolFlags.Method)
    )
  ) {
    reach(symbol);
    return;
  }
  for (const property of type.getProperties()) inferred(checker.getTypeOfSymbol(property), reach, seen);
  for (const signature of [...type.getCallSignatures(), ...type.getConstructSignatures()]) {
    for (const parameter of signature.getParameters()) inferred(checker.getTypeOfSymbol(parameter), reach, seen);
    inferred(signature.getReturnType(), reach, seen);
  }
}

// signature: types named in the declarations of kept exports, to any depth, kept where they are
// named in the same subpath; a type reached that the subpath does not export stays wherever it is
// exported, so that it can be named somewhere.
const reachedAnywhere = new Set();
for (const { subpath, exports } of core.subpaths) {
  const bySymbol = new Map(exports.map((e) => [resolved(e), e.name]));
  const names = reasons.get(subpath);
  const seen = new Set();
  const queue = exports.filter((e) => names.get(e.name).size > 0).map(resolved);
  const reach = (target) => {
    const name = bySymbol.get(target);
    if (name !== undefined && names.get(name).size === 0) names.get(name).add("signature");
    if (!seen.has(target)) queue.push(target);
  };
  while (queue.length) {
    const symbol = queue.pop();
    if (seen.has(symbol)) continue;
    seen.add(symbol);
    for (const declaration of symbol.declarations ?? []) {
      if (
        declaration.getSourceFile().isDeclarationFile &&
        declaration.getSourceFile().fileName.includes("node_modules")
      )
        continue;
      const visit = (node) => {
        if (
          ts.isIdentifier(node) &&
          (ts.isTypeReferenceNode(node.parent) ||
            ts.isExpressionWithTypeArguments(node.parent) ||
            ts.isTypeQueryNode(node.parent) ||
            ts.isQualifiedName(node.parent))
        ) {
          const found = checker.getSymbolAtLocation(node);
          if (found) reach(resolved(found));
        }
        ts.forEachChild(node, visit);
      };
      // a function's body is not its signature: only what a caller sees
      if (ts.isFunctionDeclaration(declaration) || ts.isMethodDeclaration(declaration)) {
        for (const part of [...(declaration.typeParameters ?? []), ...declaration.parameters, declaration.type])
          if (part) visit(part);
        // an inferred result is declared too: the .d.ts writes it out, naming the types it holds
        if (!declaration.type) inferred(checker.getTypeOfSymbolAtLocation(symbol, declaration), reach);
      } else if (ts.isVariableDeclaration(declaration)) {
        if (declaration.type) visit(declaration.type);
        else inferred(checker.getTypeOfSymbolAtLocation(symbol, declaration), reach);
      } else if (ts.isClassDeclaration(declaration)) {
        for (const member of declaration.members) {
          const isPrivate = member.name && ts.isPrivateIdentifier(member.name);
          const modifiers = ts.canHaveModifiers(member) ? (ts.getModifiers(member) ?? []) : [];
          if (isPrivate || modifiers.some((m) => m.kind === ts.SyntaxKind.PrivateKeyword)) continue;
          if (ts.isMethodDeclaration(member) || ts.isConstructorDeclaration(member)) {
            for (const part of [...member.parameters, member.type]) if (part) visit(part);
          } else if (ts.isPropertyDeclaration(member) && member.type) visit(member.type);
        }
        for (const clause of declaration.heritageClauses ?? []) visit(clause);
      } else {
        visit(declaration);
      }
    }
  }
  for (const symbol of seen) reachedAnywhere.add(symbol);
}
for (const { subpath, exports } of core.subpaths) {
  for (const e of exports) {
    const symbol = resolved(e);
    const keptSomewhere = core.subpaths.some((other) =>
      other.exports.some((o) => resolved(o) === symbol && reasons.get(other.subpath).get(o.name).size > 0),
    );
    if (reachedAnywhere.has(symbol) && !keptSomewhere) keep(subpath, e.name, "signature");
  }
}

let before = 0;
let removed = 0;
let testsAlone = 0;
const distinctBefore = new Set();
const distinctAfter = new Set();
const toRemove = new Map();
for (const [subpath, names] of reasons) {
  for (const [name, why] of names) {
    before++;
    distinctBefore.add(name);
    if (why.size) {
      distinctAfter.add(name);
      if (why.size === 1 && why.has("test")) testsAlone++;
      if (mode === "--keep") console.log(`${subpath.padEnd(24)} ${name.padEnd(32)} ${[...why].join(" ")}`);
    } else {
      removed++;
      toRemove.set(subpath, [...(toRemove.get(subpath) ?? []), name]);
    }
  }
}
if (mode === "--remove") {
  for (const [subpath, names] of toRemove)
    console.log(`${subpath.padEnd(24)} ${names.length.toString().padStart(3)}  ${names.sort().join(", ")}`);
}
console.log(
  `@latchkey/core: ${before} (subpath, name) pairs, ${distinctBefore.size} distinct names; ` +
    `kept ${before - removed} pairs (${testsAlone} of them for a test alone), ${distinctAfter.size} distinct; ` +
    `without a consumer ${removed} pairs`,
);
