// `bun serve/bun.ts <module>`: the Worker module `<module>` on Bun, through `Bun.serve`, with
// `Bun.env` as its variables, on 127.0.0.1 and a free port.
const { default: worker } = (await import(Bun.argv[2] ?? "")) as WorkerModule;
const server = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: (request) => worker.fetch(request, Bun.env) });
console.log(`listening on ${server.url.origin}`);
