// SvelteKit's virtual module of the server's private environment (`process.env` on Node, less
// the public prefix). The application's Vite build resolves it; this package is bundled there.
declare module "$env/dynamic/private" {
  export const env: Record<string, string | undefined>;
}
