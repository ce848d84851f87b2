// Next.js 16: the proxy runs before every page it matches (Node.js runtime).
import { gate } from "./lib/gate";

export default gate;

export const config = { matcher: ["/protected/:path*"] };
