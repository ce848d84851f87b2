// The floor of `npm run bench:runtimes` on each runtime: a route with no library, answering a
// JSON body as the session read does.
export default {
  fetch(): Promise<Response> {
    return Promise.resolve(Response.json({ ok: true }));
  },
};
