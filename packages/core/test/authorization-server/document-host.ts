/**
 * An HTTPS server on loopback that publishes client metadata documents (as an MCP client's
 * website would), with a certificate made for the run by `openssl` (its own CA: trusted through
 * the server's `clientMetadataDocuments.ca`), and a count of the requests each path received, so
 * a test sees whether the authorization server fetched, fetched once, or never connected.
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer, type Server } from "node:https";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** A self-signed certificate for `localhost` and 127.0.0.1. */
function selfSignedCertificate(): { cert: string; key: string } {
  const dir = mkdtempSync(join(tmpdir(), "latchkey-cimd-"));
  try {
    execFileSync(
      "openssl",
      [
        "req",
        "-x509",
        "-newkey",
        "ec",
        "-pkeyopt",
        "ec_paramgen_curve:prime256v1",
        "-nodes",
        "-days",
        "2",
        "-subj",
        "/CN=localhost",
        "-addext",
        "subjectAltName=DNS:localhost,IP:127.0.0.1",
        "-keyout",
        join(dir, "key.pem"),
        "-out",
        join(dir, "cert.pem"),
      ],
      { stdio: "ignore" },
    );
    return { cert: readFileSync(join(dir, "cert.pem"), "utf8"), key: readFileSync(join(dir, "key.pem"), "utf8") };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** What a path answers: a JSON document (with headers), or a handler of its own. */
export type Published =
  | { json: unknown; headers?: Record<string, string>; status?: number }
  | ((request: import("node:http").IncomingMessage, response: import("node:http").ServerResponse) => void);

export interface DocumentHost {
  /** `https://localhost:<port>` */
  origin: string;
  /** The certificate to trust. */
  cert: string;
  /** Path → what it answers; change it at will. */
  published: Map<string, Published>;
  /** Path → how many requests it received. */
  hits: Map<string, number>;
  close(): Promise<void>;
}

let certificate: { cert: string; key: string } | undefined;

/** Starts a document host on 127.0.0.1 (a new certificate once per test file). */
export async function startDocumentHost(): Promise<DocumentHost> {
  certificate ??= selfSignedCertificate();
  const published = new Map<string, Published>();
  const hits = new Map<string, number>();
  const server: Server = createServer({ cert: certificate.cert, key: certificate.key }, (request, response) => {
    const path = new URL(request.url ?? "/", "https://localhost").pathname;
    hits.set(path, (hits.get(path) ?? 0) + 1);
    const answer = published.get(path);
    if (!answer) {
      response.writeHead(404).end();
      return;
    }
    if (typeof answer === "function") {
      answer(request, response);
      return;
    }
    const body = JSON.stringify(answer.json);
    response.writeHead(answer.status ?? 200, { "content-type": "application/json", ...answer.headers }).end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `https://localhost:${port}`,
    cert: certificate.cert,
    published,
    hits,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
