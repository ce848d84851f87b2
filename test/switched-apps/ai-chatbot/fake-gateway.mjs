// A local stand-in for the Vercel AI Gateway, enough for Vercel's AI chatbot to finish a chat turn
// without a model: node fake-gateway.mjs <port> [<api key>]. See README.md.
//
// The chatbot calls its models through `@ai-sdk/gateway`, which speaks the gateway's own protocol
// (not OpenAI's): `POST <base>/language-model` with `Authorization: Bearer <key>`, the header
// `ai-gateway-protocol-version`, the model in `ai-language-model-id`, `ai-language-model-streaming`
// saying which answer it wants, and the call options of the AI SDK's language-model specification
// (version 3, `ai-language-model-specification-version`) as the JSON body: `prompt` is a list of
// messages. A streamed answer is server-sent events, one specification stream part per `data:` line
// (`stream-start`, `response-metadata`, `text-start`, `text-delta`…, `text-end`, `finish`); an
// answer in one piece is the specification's generate result as JSON (`content`, `finishReason`,
// `usage`). Errors are JSON `{ error: { type, message } }` with an HTTP status.
//
// The answer names the last user text it was given ("Fake gateway heard: …"), so a driver can tell
// that the turn went through the application, the gateway and back.
import { createServer } from "node:http";

const [portArgument, keyArgument] = process.argv.slice(2);
const port = Number(portArgument);
const apiKey = keyArgument ?? process.env.AI_GATEWAY_API_KEY ?? "fake-gateway-key";
if (!Number.isInteger(port) || port <= 0) {
  console.error("usage: node fake-gateway.mjs <port> [<api key>]");
  process.exit(2);
}

const usage = (input, output) => ({
  inputTokens: { total: input, noCache: input, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: output, text: output, reasoning: 0 },
});
const finishReason = { unified: "stop", raw: "stop" };

/** The text of the last user message of a specification prompt, or "" if it has none. */
function lastUserText(prompt) {
  const users = Array.isArray(prompt) ? prompt.filter((message) => message?.role === "user") : [];
  const content = users.at(-1)?.content;
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content
    .filter((part) => part?.type === "text")
    .map((part) => part.text)
    .join(" ");
}

function refuse(response, status, type, message) {
  response.writeHead(status, { "content-type": "application/json" });
  response.end(JSON.stringify({ error: { type, message } }));
  console.log(`${status} ${type}: ${message}`);
}

async function readJson(request) {
  const chunks = [];
  for await (const chunk of request) chunks.push(chunk);
  return JSON.parse(Buffer.concat(chunks).toString("utf8"));
}

const server = createServer(async (request, response) => {
  const path = new URL(request.url, "http://gateway").pathname;
  if (request.method !== "POST" || !path.endsWith("/language-model"))
    return refuse(response, 404, "not_found", `${request.method} ${path} is not served by this fake`);
  if (request.headers.authorization !== `Bearer ${apiKey}`)
    return refuse(response, 401, "authentication_error", "missing or wrong API key");
  const model = request.headers["ai-language-model-id"];
  if (!model) return refuse(response, 400, "invalid_request_error", "no ai-language-model-id header");
  let body;
  try {
    body = await readJson(request);
  } catch {
    return refuse(response, 400, "invalid_request_error", "the body is not JSON");
  }
  const heard = lastUserText(body.prompt).replace(/\s+/g, " ").trim().slice(0, 200);
  const text = `Fake gateway heard: ${heard}`;
  const streaming = request.headers["ai-language-model-streaming"] === "true";
  console.log(`${model} ${streaming ? "stream" : "generate"} <- ${JSON.stringify(heard)}`);
  if (!streaming) {
    response.writeHead(200, { "content-type": "application/json" });
    response.end(
      JSON.stringify({
        content: [{ type: "text", text }],
        finishReason,
        usage: usage(heard.length, text.length),
        warnings: [],
      }),
    );
    return;
  }
  response.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
  const send = (part) => response.write(`data: ${JSON.stringify(part)}\n\n`);
  const id = `text-${Date.now()}`;
  send({ type: "stream-start", warnings: [] });
  send({ type: "response-metadata", id: `fake-${Date.now()}`, modelId: model, timestamp: new Date().toISOString() });
  send({ type: "text-start", id });
  // Word by word, so the application streams more than one delta.
  for (const word of text.split(/(?<= )/)) send({ type: "text-delta", id, delta: word });
  send({ type: "text-end", id });
  send({ type: "finish", finishReason, usage: usage(heard.length, text.length) });
  response.end();
});

server.listen(port, "127.0.0.1", () => console.log(`fake AI gateway on http://127.0.0.1:${port}`));
