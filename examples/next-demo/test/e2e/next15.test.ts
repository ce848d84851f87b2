// The demo on Next.js 15 (examples/next-demo-15, middleware.ts on the Node.js runtime): see suite.ts.
import { nextDemoSuite } from "./suite.js";

nextDemoSuite(15);
