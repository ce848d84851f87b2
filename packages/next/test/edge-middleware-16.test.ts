// Middleware on the Edge runtime, Next.js 16: see edge-middleware.ts.
import { edgeMiddlewareSuite } from "./edge-middleware.js";

edgeMiddlewareSuite(16);
