// Types for check-unused-exports.mjs, for the test that proves the check finds what it should.
export const ALLOWED: Map<string, string>;
export function unusedExports(root: string): { file: string; name: string; line: number }[];
