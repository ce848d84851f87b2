#!/usr/bin/env node
/**
 * The `latchkey` command, installed with `@latchkey/cli` (`npm install -D @latchkey/cli`).
 *
 * - `npx latchkey secret` prints a new random secret for `AUTH_SECRET` (32 bytes, base64url);
 *   `--raw` prints the secret alone.
 * - `npx latchkey migrate <database-url> [--channel <name>]` creates the SQL adapter's tables (and
 *   on PostgreSQL the triggers that announce session changes to `session.cache`): it runs the command of
 *   `@latchkey/sql-adapter` (a dependency of this package; the database's driver, `pg`, `mysql2`
 *   or `better-sqlite3`, is the application's).
 *
 * @example
 * ```sh
 * npm install -D @latchkey/cli
 * echo "AUTH_SECRET=$(npx latchkey secret --raw)" >> .env
 * npx latchkey migrate postgres://postgres@127.0.0.1:5432/app
 * ```
 * @module cli
 */
import { randomBytes } from "node:crypto";
import { main as sqlAdapterMain } from "@latchkey/sql-adapter/cli";

const usage = `Usage:
  latchkey secret [--raw]          print a new secret for AUTH_SECRET
  latchkey migrate <database-url> [--channel <name>]
                                   create the SQL adapter's tables (@latchkey/sql-adapter); on
                                   PostgreSQL also the triggers that NOTIFY session changes`;

/** Runs the command with its arguments (`["secret", "--raw"]`); resolves with the exit code. */
export async function main(args: string[]): Promise<number> {
  const [command, ...rest] = args;
  switch (command) {
    case "secret": {
      const secret = randomBytes(32).toString("base64url");
      console.log(rest.includes("--raw") ? secret : `AUTH_SECRET="${secret}"`);
      return 0;
    }
    case "migrate":
      return sqlAdapterMain(args);
    case "help":
    case "--help":
    case "-h":
      console.log(usage);
      return 0;
    default:
      console.error(usage);
      return 2;
  }
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    console.error(`latchkey: ${error instanceof Error ? error.message : String(error)}`);
    process.exitCode = 1;
  },
);
