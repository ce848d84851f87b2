// The layering of @latchkey/core's sources, as docs/architecture.md states it ("Layers"), in a
// form a test can check edge by edge. Bottom to top:
//   shapes/ (+ lib/base/symbols.ts)  plain data shapes; import nothing else
//   providers/                  provider factories; below the configuration
//   lib/                        the machinery, in wings (its folders), each with its face (faces.ts);
//                               the application's configuration is lib/config/options.ts
//   the files of src/           the entry modules, public (index, errors, types, jwt, ...): faces over
//                               lib/'s faces and shapes/; nothing below imports them
import { FACELESS_WINGS, isFace, wingOf } from "./faces.js";
import type { ImportGraph } from "./import-graph.js";

const SYMBOLS = "lib/base/symbols.ts";
/** The configuration's declarations, the only files of lib/config/ a flow reads: neither calls a flow. */
const CONFIG_SHAPES = ["lib/config/types.ts", "lib/config/options.ts"];

const isShape = (file: string) => file.startsWith("shapes/") || file === SYMBOLS;
const isEntry = (file: string) => !file.includes("/");

/** Why `from` may not import `to` (paths relative to src/), or undefined when it may. */
export function layerRule(from: string, to: string): string | undefined {
  if (isShape(from) && !isShape(to)) return "shapes/ import only shapes/ and lib/base/symbols.ts";
  if (from.startsWith("providers/") && (to.startsWith("lib/config/") || isEntry(to))) {
    return "providers/ import neither the configuration (lib/config/) nor an entry module";
  }
  if (from.startsWith("providers/") && to.startsWith("lib/flows/")) {
    return "providers/ import no flow: the helpers they run sit below them (lib/email/, lib/base/profile.ts)";
  }
  if (from.startsWith("lib/flows/") && to.startsWith("lib/config/") && !CONFIG_SHAPES.includes(to)) {
    return `lib/flows/ read the configuration's shapes from lib/config/types.ts and lib/config/options.ts, never ${to} (which calls them)`;
  }
  if (CONFIG_SHAPES.includes(from) && to.startsWith("lib/flows/")) {
    return `${from} imports no flow: the flows read it, lib/config/resolve.ts calls them`;
  }
  if (from.startsWith("lib/") && isEntry(to)) return "lib/ imports no entry module of src/";
  if (isEntry(from) && to.startsWith("lib/") && !isFace(to) && !FACELESS_WINGS.has(wingOf(to) ?? "")) {
    return "an entry module imports lib/ only through a wing's face (lib/<wing>/index.ts)";
  }
  return undefined;
}

/**
 * Every import of `graph` that breaks a rule of {@link layerRule}, as `from:line → to (rule)`.
 *
 * @example
 * layerViolations(importGraph(src), (file) => relative(src, file)); // [] when the layers hold
 */
export function layerViolations(graph: ImportGraph, name: (file: string) => string): string[] {
  const found: string[] = [];
  for (const [file, edges] of graph) {
    for (const edge of edges) {
      const from = name(file);
      const to = name(edge.to);
      const rule = layerRule(from, to);
      if (rule) found.push(`${from}:${edge.line} → ${to} (${rule})`);
    }
  }
  return found;
}
