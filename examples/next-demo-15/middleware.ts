// Next.js 15: middleware, on the Node.js runtime (Latchkey needs node:crypto).
import { gate } from "./lib/gate";

export default gate;

export const config = { matcher: ["/protected/:path*"], runtime: "nodejs" };
