// Middleware on the Edge runtime, Next.js 15: see edge-middleware.ts.
import { edgeMiddlewareSuite } from "./edge-middleware.js";

edgeMiddlewareSuite(15);
