import type { LoggerInstance } from "../types.js";

/** Warnings Latchkey logs through `logger.warn`. */
export type WarningCode = "debug-enabled" | "csrf-disabled" | "experimental-webauthn" | "env-url-basepath-mismatch";

const warningText: Record<WarningCode, string> = {
  "debug-enabled": "Debug logging is on; it may log secrets and personal data. Turn `debug` off in production.",
  "csrf-disabled": "The CSRF check is off (`skipCSRFCheck`). Only do this when the framework checks CSRF itself.",
  "experimental-webauthn": "WebAuthn is experimental: its API may change or be removed without notice.",
  "env-url-basepath-mismatch": "AUTH_URL has a path and `basePath` is set; the path of AUTH_URL is ignored.",
};

/** Builds the logger: the defaults print to the console; the caller may replace any method. */
export function createLogger(custom: Partial<LoggerInstance> | undefined, debug: boolean): LoggerInstance {
  const logger: LoggerInstance = {
    error(error) {
      const type = (error as { type?: string }).type ?? error.name;
      console.error(`[latchkey][error] ${type}: ${error.message}`);
      let cause = (error as { cause?: unknown }).cause;
      for (let depth = 0; cause && depth < 5; depth++) {
        const err = cause instanceof Error ? cause : (cause as { err?: unknown }).err;
        if (err instanceof Error) {
          console.error(`[latchkey][cause] ${err.stack ?? err.message}`);
          cause = (err as { cause?: unknown }).cause;
        } else {
          console.error("[latchkey][cause]", cause);
          break;
        }
      }
    },
    warn(code) {
      console.warn(
        `[latchkey][warn][${code}] ${Object.hasOwn(warningText, code) ? warningText[code as WarningCode] : ""}`.trimEnd(),
      );
    },
    debug(message, metadata) {
      if (!debug) return;
      if (metadata === undefined) console.log(`[latchkey][debug] ${message}`);
      else console.log(`[latchkey][debug] ${message}`, metadata);
    },
  };
  if (custom?.error) logger.error = custom.error;
  if (custom?.warn) logger.warn = custom.warn;
  if (custom?.debug) {
    const userDebug = custom.debug;
    logger.debug = (message, metadata) => {
      if (debug) userDebug(message, metadata);
    };
  }
  return logger;
}
