// `deno run serve/deno.ts <module>`: the Worker module `<module>` on Deno, through `Deno.serve`,
// with the environment as its variables, on 127.0.0.1 and a free port.
const { default: worker } = (await import(Deno.args[0] ?? "")) as WorkerModule;
const env = Deno.env.toObject();
const onListen = ({ hostname, port }: { hostname: string; port: number }) =>
  console.log(`listening on http://${hostname}:${port}`);
Deno.serve({ hostname: "127.0.0.1", port: 0, onListen }, (request) => worker.fetch(request, env));
