// The layering of @latchkey/core's sources, as docs/architecture.md states it ("Layers"), in a
// form a test can check edge by edge. Bottom to top:
//   shapes/ (+ lib/base/symbols.ts)  plain data shapes; import nothing else
//   adapters.ts errors.ts rate-limit.ts refresh-store.ts  records, errors and stores over shapes
//   providers/                  provider factories; below the configuration
//   types.ts                    the configuration (AuthConfig), over providers
//   lib/                        the machinery, in wings (its folders), each with its face (faces.ts)
//   the other files of src/     the entry modules (index, jwt, sessions, ...), over lib/'s faces
import { FACELESS_WINGS, isFace, wingOf } from "./faces.js";
import type { ImportGraph } from "./import-graph.js";

/** The public modules of src/ that lib/ and providers/ may import: declarations and stores. */
export const FOUNDATION = ["adapters.ts", "errors.ts", "rate-limit.ts", "refresh-store.ts"];
const CONFIGURATION = "types.ts";
const SYMBOLS = "lib/base/symbols.ts";
const CONFIG_TYPES = "lib/config/types.ts";

const isShape = (file: string) => file.startsWith("shapes/") || file === SYMBOLS;
const isRoot = (file: string) => !file.includes("/");
const isEntry = (file: string) => isRoot(file) && file !== CONFIGURATION && !FOUNDATION.includes(file);

/** Why `from` may not import `to` (paths relative to src/), or undefined when it may. */
export function layerRule(from: string, to: string): string | undefined {
  if (isShape(from) && !isShape(to)) return "shapes/ import only shapes/ and lib/base/symbols.ts";
  if (FOUNDATION.includes(from) && !isShape(to) && !FOUNDATION.includes(to)) {
    return "adapters.ts, errors.ts, rate-limit.ts and refresh-store.ts import only shapes/ and each other";
  }
  if (from === CONFIGURATION && !isShape(to) && !FOUNDATION.includes(to) && to !== "providers/index.ts") {
    return "types.ts imports only shapes/, the foundation modules and providers/index.ts";
  }
  if (from.startsWith("providers/") && (to === CONFIGURATION || isEntry(to))) {
    return "providers/ import neither types.ts nor an entry module";
  }
  if (from.startsWith("providers/") && to.startsWith("lib/flows/")) {
    return "providers/ import no flow: the helpers they run sit below them (lib/email/, lib/base/profile.ts)";
  }
  if (from.startsWith("lib/flows/") && to.startsWith("lib/config/") && to !== CONFIG_TYPES) {
    return `lib/flows/ read the resolved configuration's shapes from lib/config/types.ts, never ${to} (which calls them)`;
  }
  if (from === CONFIG_TYPES && to.startsWith("lib/flows/")) {
    return "lib/config/types.ts imports no flow: the flows read it, lib/config/resolve.ts calls them";
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
