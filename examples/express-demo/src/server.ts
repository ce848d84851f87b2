// `npm start`: runs the demo with the settings of the environment (PORT, DATABASE_URL, REDIS_URL,
// AUTH_SECRET, AUTH_GITHUB_ID, ..., DEMO_DATA_DIR).
import { startDemo } from "./demo.js";

const demo = await startDemo();
console.log(`Latchkey demo on ${demo.url}`);
for (const line of demo.enabled) console.log(`  - ${line}`);

for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.once(signal, () => void demo.close().then(() => process.exit(0)));
}
