import type { ResolvedConfig } from "../config/types.js";
import { readDatabaseSession } from "./database-strategy.js";
import { readJwtSession, readJwtSessionNow } from "./jwt-strategy.js";
import type { SessionRead, SessionReadOptions } from "./read.js";

/** Reads the session of a request under the configured strategy. */
export function readSession(config: ResolvedConfig, options: SessionReadOptions): Promise<SessionRead> {
  return config.session.strategy === "jwt" ? readJwtSession(config, options) : readDatabaseSession(config, options);
}

/**
 * {@link readSession}, answered on the caller's own turn when the read has nothing to wait for (a
 * JWT session: `readJwtSessionNow`); the same answer either way.
 */
export function readSessionNow(
  config: ResolvedConfig,
  options: SessionReadOptions,
): SessionRead | Promise<SessionRead> {
  return config.session.strategy === "jwt" ? readJwtSessionNow(config, options) : readDatabaseSession(config, options);
}
