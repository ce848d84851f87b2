// Types for unit-suites.mjs, imported by vitest.unit.config.ts.
export const HEAVY: Set<string>;
export function unitSuites(root: string): string[];
