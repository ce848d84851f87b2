// The demo on Next.js 16 (examples/next-demo, proxy.ts): see suite.ts.
import { nextDemoSuite } from "./suite.js";

nextDemoSuite(16);
