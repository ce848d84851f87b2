// The OpenID Provider the App Router example signs in with (its Keycloak provider), on loopback:
// the Express demo's development provider (any login name, any password), built by `npm run build`.
// node idp.mjs <port of the first copy> <port of the second copy>; prints the client's secret.
import { startDemoIdP } from "../../../examples/express-demo/dist/dev-idp.js";

const ports = process.argv.slice(2);
const idp = await startDemoIdP(
  ports.map((port) => `http://localhost:${port}/auth/callback/keycloak`),
  Number(process.env.IDP_PORT ?? 4199),
);
console.log(
  `AUTH_KEYCLOAK_ISSUER=${idp.issuer}\nAUTH_KEYCLOAK_ID=${idp.clientId}\nAUTH_KEYCLOAK_SECRET=${idp.clientSecret}`,
);
