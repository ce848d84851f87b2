import type { ResolvedConfig } from "../config-types.js";
import { readDatabaseSession } from "./database-strategy.js";
import { readJwtSession } from "./jwt-strategy.js";
import type { SessionRead, SessionReadOptions } from "./read.js";

/** Reads the session of a request under the configured strategy. */
export function readSession(config: ResolvedConfig, options: SessionReadOptions): Promise<SessionRead> {
  return config.session.strategy === "jwt" ? readJwtSession(config, options) : readDatabaseSession(config, options);
}
