// Types for switch-imports.mjs, imported by test/switched-apps.
export function switchSource(text: string): string;
export function switchApplication(folder: string, specs?: { next: string; core: string }): string[];
