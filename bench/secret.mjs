/** The secret every benchmark server uses, and that the harness seals its per-user tokens with. */
export const SECRET = "latchkey-bench-secret-0123456789abcdefghijklmnop";
