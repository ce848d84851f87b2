// The wings of @latchkey/core's lib/ and their faces, as docs/architecture.md states them ("Wings"),
// in a form a test can check name by name. A wing is a folder at the top of lib/ (lib/http/,
// lib/session/, ...); its face, lib/<wing>/index.ts, only re-exports, and offers every name the rest
// of the library uses from the wing. Entry modules import a wing only through its face (layerRule);
// other wings import an offered name from the file that defines it (a face imported by a wing
// would tie the wings into cycles), and never a name the face does not offer.
import { posix } from "node:path";
import ts from "typescript";

/**
 * Wings without a face, each with its reason.
 */
export const FACELESS_WINGS: ReadonlyMap<string, string> = new Map([
  ["platform", "lib/platform/ is reached through the #platform import, never by a path"],
]);

/**
 * Every statement of a public module of src/ (a file at its top, every one of them) that is not a
 * re-export (`export { a } from "./lib/x/index.js"`, `export type { T } from "./shapes/data.js"`,
 * `export * from ...`), as `file:line`: a public module is a face, its code and its declarations
 * live in lib/ and shapes/.
 *
 * @example
 * publicModuleCode(new Map([["jwt.ts", 'export { encode } from "./lib/crypto/index.js";']])); // []
 */
export function publicModuleCode(files: ReadonlyMap<string, string>): string[] {
  const found: string[] = [];
  for (const [file, text] of files) {
    if (file.includes("/")) continue;
    const source = parse(file, text);
    for (const statement of source.statements) {
      if (ts.isExportDeclaration(statement) && statement.moduleSpecifier) continue;
      const line = source.getLineAndCharacterOfPosition(statement.getStart(source)).line + 1;
      found.push(`${file}:${line} (a public module only re-exports; its code lives in lib/)`);
    }
  }
  return found;
}

/** The wing of a file of src/ (`lib/http/cookies.ts` → `http`), or undefined outside lib/'s folders. */
export function wingOf(file: string): string | undefined {
  const parts = file.split("/");
  return parts[0] === "lib" && parts.length > 2 ? parts[1] : undefined;
}

/** True for a wing's face: `lib/<wing>/index.ts`, for a wing that has one. */
export function isFace(file: string): boolean {
  const wing = wingOf(file);
  return wing !== undefined && !FACELESS_WINGS.has(wing) && file === `lib/${wing}/index.ts`;
}

interface NamedImport {
  /** The file written in, and the line. */
  from: string;
  line: number;
  /** The file imported, relative to src/. */
  to: string;
  /** The names taken from it; "*" when the whole module is (a namespace, an `import()` kept whole). */
  names: string[];
}

function parse(file: string, text: string): ts.SourceFile {
  return ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
}

/** The names an `import()` call takes: `const { a } = await import(x)`, `import(x).then(({ a }) => …)`, `(await import(x)).a`. */
function dynamicNames(call: ts.CallExpression, source: ts.SourceFile): string[] {
  const fromBinding = (name: ts.BindingName | undefined) =>
    name && ts.isObjectBindingPattern(name)
      ? name.elements.map((element) => (element.propertyName ?? element.name).getText(source))
      : undefined;
  const parent = call.parent;
  if (parent && ts.isPropertyAccessExpression(parent) && parent.name.text === "then") {
    const handler = ts.isCallExpression(parent.parent) ? parent.parent.arguments[0] : undefined;
    if (handler && (ts.isArrowFunction(handler) || ts.isFunctionExpression(handler))) {
      const names = fromBinding(handler.parameters[0]?.name);
      if (names) return names;
    }
    return ["*"];
  }
  let up: ts.Node = parent;
  if (ts.isAwaitExpression(up)) up = up.parent;
  if (ts.isParenthesizedExpression(up)) up = up.parent;
  if (ts.isVariableDeclaration(up)) return fromBinding(up.name) ?? ["*"];
  if (ts.isPropertyAccessExpression(up)) return [up.name.text];
  return ["*"];
}

/** Every relative import of `file` with the names it takes, resolved against `known` (paths relative to src/). */
function namedImports(file: string, text: string, known: ReadonlySet<string>): NamedImport[] {
  const source = parse(file, text);
  const found: NamedImport[] = [];
  const resolve = (specifier: string) => {
    const path = posix.normalize(posix.join(posix.dirname(file), specifier));
    return [path.replace(/\.js$/, ".ts"), `${path}.ts`, `${path}/index.ts`].find((candidate) => known.has(candidate));
  };
  const note = (node: ts.Node, specifier: string, names: string[]) => {
    const to = specifier.startsWith(".") ? resolve(specifier) : undefined;
    if (to === undefined) return;
    const line = source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1;
    found.push({ from: file, line, to, names });
  };
  const visit = (node: ts.Node): void => {
    if (ts.isImportDeclaration(node) && ts.isStringLiteral(node.moduleSpecifier)) {
      const clause = node.importClause;
      const names: string[] = [];
      if (clause?.name) names.push("default");
      const bindings = clause?.namedBindings;
      if (bindings && ts.isNamedImports(bindings)) {
        for (const element of bindings.elements) names.push((element.propertyName ?? element.name).text);
      }
      if (bindings && ts.isNamespaceImport(bindings)) names.push("*");
      note(node, node.moduleSpecifier.text, names);
    } else if (ts.isExportDeclaration(node) && node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier)) {
      const clause = node.exportClause;
      const names =
        clause && ts.isNamedExports(clause)
          ? clause.elements.map((element) => (element.propertyName ?? element.name).text)
          : ["*"];
      note(node, node.moduleSpecifier.text, names);
    } else if (
      ts.isCallExpression(node) &&
      node.expression.kind === ts.SyntaxKind.ImportKeyword &&
      node.arguments[0] !== undefined &&
      ts.isStringLiteralLike(node.arguments[0])
    ) {
      note(node, node.arguments[0].text, dynamicNames(node, source));
    } else if (
      ts.isImportTypeNode(node) &&
      ts.isLiteralTypeNode(node.argument) &&
      ts.isStringLiteral(node.argument.literal)
    ) {
      const first = node.qualifier ? node.qualifier.getText(source).split(".")[0] : undefined;
      note(node, node.argument.literal.text, [first ?? "*"]);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

/** What a face offers: the names it exports, and whether it holds anything but re-exports. */
function offered(file: string, text: string): { names: Set<string>; code: string[] } {
  const source = parse(file, text);
  const names = new Set<string>();
  const code: string[] = [];
  for (const statement of source.statements) {
    const clause = ts.isExportDeclaration(statement) ? statement.exportClause : undefined;
    if (ts.isExportDeclaration(statement) && statement.moduleSpecifier && clause && ts.isNamedExports(clause)) {
      for (const element of clause.elements) names.add(element.name.text);
    } else {
      const line = source.getLineAndCharacterOfPosition(statement.getStart(source)).line + 1;
      code.push(`${file}:${line}`);
    }
  }
  return { names, code };
}

/**
 * Every break of the wings' rules in `files` (path relative to src/ → source text), as
 * `from:line → to (rule)`: a face that holds more than named re-exports, an import from outside a
 * wing of a name its face does not offer (or of a whole private module), a wing imported from
 * outside that has no face, a name a face offers that no file outside the wing uses.
 *
 * @example
 * faceViolations(new Map([["lib/http/index.ts", 'export { a } from "./a.js";'], ...])); // [] when the wings hold
 */
export function faceViolations(files: ReadonlyMap<string, string>): string[] {
  const known = new Set(files.keys());
  const found: string[] = [];
  const faces = new Map<string, Set<string>>();
  for (const [file, text] of files) {
    if (!isFace(file)) continue;
    const face = offered(file, text);
    faces.set(file, face.names);
    for (const where of face.code) found.push(`${where} (a face only re-exports, by name)`);
  }
  const taken = new Map<string, Set<string>>(); // face → the names files outside its wing take
  for (const [file, text] of files) {
    for (const edge of namedImports(file, text, known)) {
      const wing = wingOf(edge.to);
      if (wing === undefined || wing === wingOf(file) || FACELESS_WINGS.has(wing)) continue;
      const face = `lib/${wing}/index.ts`;
      const names = taken.get(face) ?? new Set<string>();
      taken.set(face, names);
      for (const name of edge.names) names.add(name);
      if (isFace(edge.to)) continue;
      const offers = faces.get(face);
      const at = `${file}:${edge.line} → ${edge.to}`;
      if (!offers) {
        found.push(`${at} (lib/${wing}/ has no face, ${face})`);
        continue;
      }
      const hidden = edge.names.filter((name) => !offers.has(name));
      if (hidden.length) found.push(`${at} (${hidden.join(", ")}: not offered by ${face}, private to lib/${wing}/)`);
    }
  }
  for (const [face, offers] of faces) {
    const unused = [...offers].filter((name) => !taken.get(face)?.has(name));
    if (unused.length) found.push(`${face} (${unused.join(", ")}: offered, and used by no file outside the wing)`);
  }
  return found;
}
