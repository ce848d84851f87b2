/**
 * `latchkey migrate <database-url>`: creates the tables and indexes the SQL adapter needs, and
 * prints what it did. The `latchkey` command of `@latchkey/cli` runs it; this module also runs
 * on its own (`node node_modules/@latchkey/sql-adapter/dist/cli.js migrate <url>`).
 *
 * @example
 * ```sh
 * npm install -D @latchkey/cli
 * npx latchkey migrate sqlite:./auth.db
 * npx latchkey migrate postgres://postgres@127.0.0.1:5432/app
 * npx latchkey migrate mysql://root@127.0.0.1:3306/app
 * ```
 * @module cli
 */
import { pathToFileURL } from "node:url";
import { openDatabase } from "./open.js";
import { CHANNEL_NAME, migrate } from "./schema.js";

const usage = `Usage: latchkey migrate <database-url> [--channel <name>]

  <database-url>     postgres://user@host:5432/db, mysql://user@host:3306/db,
                     sqlite:<path> or a path to a SQLite file (created if missing)
  --channel <name>   PostgreSQL: the LISTEN/NOTIFY channel the session-change triggers
                     notify (the SqlRevocationStore's \`channel\`; default latchkey_revocations)`;

/** Runs the CLI with its arguments (`["migrate", url]`); resolves with the exit code. */
export async function main(args: string[]): Promise<number> {
  const [command, url, ...rest] = args;
  if (command === "--help" || command === "-h" || command === "help") {
    console.log(usage);
    return 0;
  }
  const [flag, channel, ...extra] = rest;
  const channelGiven = flag === "--channel" && channel !== undefined && extra.length === 0;
  if (command !== "migrate" || !url || (rest.length > 0 && !channelGiven)) {
    console.error(usage);
    return 2;
  }
  if (channel !== undefined && !CHANNEL_NAME.test(channel)) {
    console.error(
      `--channel must be a lower-case SQL identifier (letters, digits, _); received ${JSON.stringify(channel)}`,
    );
    return 2;
  }
  const db = await openDatabase(url);
  try {
    const done = await migrate(db, channelGiven ? { channel } : {});
    for (const line of done) console.log(line);
    console.log(done.length === 0 ? "schema is up to date: nothing to do" : `done: ${done.length} change(s)`);
    return 0;
  } finally {
    await db.destroy();
  }
}

/** Runs `main` and sets the exit code, printing a failure instead of a stack trace. */
export function run(args: string[]): Promise<void> {
  return main(args).then(
    (code) => {
      process.exitCode = code;
    },
    (error: unknown) => {
      console.error(`latchkey migrate failed: ${error instanceof Error ? error.message : String(error)}`);
      process.exitCode = 1;
    },
  );
}

// Executed directly (not imported by the `latchkey` command).
if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) void run(process.argv.slice(2));
