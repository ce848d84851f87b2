// The import graph of a package's sources, read with the TypeScript compiler API. Every way one
// file can name another counts as an edge: `import` and `import type`, `export ... from`,
// `import x = require()`, and `import()` (awaited at run time or written in a type). Only
// relative specifiers are followed: a package reaches another through its public name, never
// through a path.
import { readdirSync } from "node:fs";
import { join, relative, sep } from "node:path";
import ts from "typescript";

/** One file's relative imports: the files they resolve to, with the statement's line. */
export interface ImportEdge {
  to: string;
  line: number;
  /** True when only types cross it (`import type`, `export type`, a type-position `import()`). */
  typeOnly: boolean;
}

/** File (absolute path) → the files it imports. */
export type ImportGraph = Map<string, ImportEdge[]>;

const options: ts.CompilerOptions = {
  module: ts.ModuleKind.NodeNext,
  moduleResolution: ts.ModuleResolutionKind.NodeNext,
  allowJs: false,
};

/** Folders never read: installed and built files, and a Next.js app's tests and scripts (see importGraph). */
const skippedFolders = new Set(["node_modules", "dist", ".next", "test", "scripts"]);

/** Every `.ts` and `.tsx` file under `dir` (declaration files and the skipped folders left out). */
export function sourceFiles(dir: string): string[] {
  const found: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) {
      if (!skippedFolders.has(entry.name)) found.push(...sourceFiles(path));
    } else if (/\.tsx?$/.test(entry.name) && !entry.name.endsWith(".d.ts")) {
      found.push(path);
    }
  }
  return found.sort();
}

interface Specifier {
  text: string;
  node: ts.Node;
  typeOnly: boolean;
}

/** The module specifiers a file writes, in every syntax that names a module. */
function specifiersOf(file: ts.SourceFile): Specifier[] {
  const found: Specifier[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isImportDeclaration(node) && ts.isStringLiteral(node.moduleSpecifier)) {
      const clause = node.importClause;
      const typeOnly =
        clause !== undefined &&
        (clause.isTypeOnly ||
          (clause.name === undefined &&
            clause.namedBindings !== undefined &&
            ts.isNamedImports(clause.namedBindings) &&
            clause.namedBindings.elements.length > 0 &&
            clause.namedBindings.elements.every((element) => element.isTypeOnly)));
      found.push({ text: node.moduleSpecifier.text, node, typeOnly });
    } else if (ts.isExportDeclaration(node) && node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier)) {
      const clause = node.exportClause;
      const typeOnly =
        node.isTypeOnly ||
        (clause !== undefined &&
          ts.isNamedExports(clause) &&
          clause.elements.length > 0 &&
          clause.elements.every((element) => element.isTypeOnly));
      found.push({ text: node.moduleSpecifier.text, node, typeOnly });
    } else if (
      ts.isImportEqualsDeclaration(node) &&
      ts.isExternalModuleReference(node.moduleReference) &&
      ts.isStringLiteral(node.moduleReference.expression)
    ) {
      found.push({ text: node.moduleReference.expression.text, node, typeOnly: node.isTypeOnly });
    } else if (
      ts.isImportTypeNode(node) &&
      ts.isLiteralTypeNode(node.argument) &&
      ts.isStringLiteral(node.argument.literal)
    ) {
      found.push({ text: node.argument.literal.text, node, typeOnly: true });
    } else if (
      ts.isCallExpression(node) &&
      node.expression.kind === ts.SyntaxKind.ImportKeyword &&
      node.arguments[0] !== undefined &&
      ts.isStringLiteralLike(node.arguments[0])
    ) {
      found.push({ text: node.arguments[0].text, node, typeOnly: false });
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
  return found;
}

/**
 * The relative imports of every source file under `dir`, resolved the way `tsc` resolves them
 * (NodeNext: `./x.js` is `./x.ts`, a folder's `index`; a Next.js app passes its bundler resolution,
 * where `./x` is `./x.ts` or `./x.tsx`).
 *
 * @example
 * const graph = importGraph("packages/core/src");
 * graph.get("/…/packages/core/src/jwt.ts"); // [{ to: "/…/src/lib/crypto/jwe.ts", line: 3, typeOnly: false }, …]
 */
export function importGraph(dir: string, resolution: ts.CompilerOptions = options): ImportGraph {
  const graph: ImportGraph = new Map();
  const files = sourceFiles(dir);
  const known = new Set(files);
  for (const path of files) {
    const text = ts.sys.readFile(path) ?? "";
    const kind = path.endsWith(".tsx") ? ts.ScriptKind.TSX : ts.ScriptKind.TS;
    const file = ts.createSourceFile(path, text, ts.ScriptTarget.Latest, true, kind);
    const edges: ImportEdge[] = [];
    for (const specifier of specifiersOf(file)) {
      // A style sheet (a Next.js app's `import "./globals.css"`) imports no code back, and
      // SvelteKit's `./$types` are generated declarations (under .svelte-kit/ after a sync), types
      // only, which import nothing of the route's.
      if (!specifier.text.startsWith(".") || specifier.text.endsWith(".css")) continue;
      if (specifier.typeOnly && /(^|\/)\$types$/.test(specifier.text)) continue;
      const resolved = ts.resolveModuleName(
        specifier.text,
        path,
        resolution,
        ts.sys,
        undefined,
        undefined,
        ts.ModuleKind.ESNext,
      ).resolvedModule?.resolvedFileName;
      const line = file.getLineAndCharacterOfPosition(specifier.node.getStart(file)).line + 1;
      if (resolved === undefined || !known.has(resolved)) {
        // A path out of the folder is no edge of this graph, and skipping it could hide a cycle.
        const where = resolved === undefined ? "no file" : `${relative(dir, resolved)}, outside the folder read`;
        throw new Error(`${relative(dir, path)}:${line} imports "${specifier.text}", which resolves to ${where}`);
      }
      edges.push({ to: resolved, line, typeOnly: specifier.typeOnly });
    }
    graph.set(path, edges);
  }
  return graph;
}

/**
 * Every cycle of the graph, each once, as the list of files it passes through (first file
 * repeated at the end). Found per strongly connected component (Tarjan), then one shortest
 * cycle through each file of the component that no cycle found so far already passes through,
 * so a tangle of many files is reported by a few readable paths rather than all of them.
 *
 * @example
 * findCycles(importGraph(dir)).map((cycle) => cycle.join(" → ")); // ["a.ts → b.ts → a.ts"]
 */
export function findCycles(graph: ImportGraph): string[][] {
  const cycles: string[][] = [];
  for (const component of stronglyConnected(graph)) {
    const members = new Set(component);
    const single = component[0]!;
    if (component.length === 1 && !(graph.get(single) ?? []).some((edge) => edge.to === single)) continue;
    const covered = new Set<string>();
    for (const start of component) {
      if (covered.has(start)) continue;
      const cycle = shortestCycle(graph, start, members);
      for (const file of cycle) covered.add(file);
      cycles.push(cycle);
    }
  }
  return cycles;
}

/** The shortest path from `start` back to itself inside one component (breadth first). */
function shortestCycle(graph: ImportGraph, start: string, members: Set<string>): string[] {
  const previous = new Map<string, string>();
  const queue = [start];
  for (let index = 0; index < queue.length; index++) {
    const from = queue[index]!;
    for (const { to } of graph.get(from) ?? []) {
      if (!members.has(to)) continue;
      if (to === start) {
        const path = [start];
        for (let at: string | undefined = from; at !== start && at !== undefined; at = previous.get(at)) {
          path.splice(1, 0, at);
        }
        return [...path, start];
      }
      if (!previous.has(to)) {
        previous.set(to, from);
        queue.push(to);
      }
    }
  }
  return [start, start];
}

/** Tarjan's strongly connected components, iterative so deep graphs do not overflow the stack. */
function stronglyConnected(graph: ImportGraph): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const onStack = new Set<string>();
  const stack: string[] = [];
  const components: string[][] = [];
  let counter = 0;
  for (const root of graph.keys()) {
    if (index.has(root)) continue;
    const work: { node: string; next: number }[] = [{ node: root, next: 0 }];
    index.set(root, counter);
    low.set(root, counter++);
    stack.push(root);
    onStack.add(root);
    while (work.length > 0) {
      const frame = work[work.length - 1]!;
      const edges = graph.get(frame.node) ?? [];
      if (frame.next < edges.length) {
        const to = edges[frame.next++]!.to;
        if (!index.has(to)) {
          index.set(to, counter);
          low.set(to, counter++);
          stack.push(to);
          onStack.add(to);
          work.push({ node: to, next: 0 });
        } else if (onStack.has(to)) {
          low.set(frame.node, Math.min(low.get(frame.node)!, index.get(to)!));
        }
        continue;
      }
      work.pop();
      const parent = work[work.length - 1];
      if (parent) low.set(parent.node, Math.min(low.get(parent.node)!, low.get(frame.node)!));
      if (low.get(frame.node) === index.get(frame.node)) {
        const component: string[] = [];
        let member: string;
        do {
          member = stack.pop()!;
          onStack.delete(member);
          component.push(member);
        } while (member !== frame.node);
        components.push(component.sort());
      }
    }
  }
  return components;
}

/** A cycle as a reader wants it: paths relative to `dir`, joined by arrows. */
export function describeCycle(cycle: string[], dir: string): string {
  return cycle.map((file) => relative(dir, file).split(sep).join("/")).join(" → ");
}
