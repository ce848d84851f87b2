import type { IncomingMessage } from "node:http";
import type { AppOptions } from "@latchkey/express-demo/demo";

declare global {
  namespace App {
    interface Platform {
      /** adapter-node's request, given the demo's configuration and mailbox by `server.js`. */
      req: IncomingMessage & { latchkeyDemo?: AppOptions };
    }
  }
}
