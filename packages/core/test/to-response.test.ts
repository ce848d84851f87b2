// toResponse: the one conversion of a ResponseInternal into a Web Response (the headers as a
// record, cookies appended one by one), checked against what `Headers#append` makes of the same
// pairs, so the faster construction writes the same bytes.
import { describe, expect, it } from "vitest";
import { finalizeResponse, toResponse } from "../src/internal.js";
import type { ResponseInternal } from "../src/types.js";

/** The headers `Headers#append` makes of the same pairs: what toResponse answered before it took a record. */
function appended(res: ResponseInternal): Headers {
  const headers = new Headers();
  for (const [name, value] of finalizeResponse(res).headers) headers.append(name, value);
  return headers;
}

const cases: Array<[string, ResponseInternal]> = [
  ["a session read (no cookie)", { headers: { "Cache-Control": "private, no-cache, no-store" }, body: { user: {} } }],
  [
    "two cookies and the no-store headers they bring",
    {
      body: { csrfToken: "t" },
      cookies: [
        { name: "a", value: "1", options: { path: "/", httpOnly: true } },
        { name: "b", value: "2", options: { path: "/", maxAge: 0 } },
      ],
    },
  ],
  [
    "a name given twice in two cases, and a Set-Cookie among the headers",
    { headers: { Vary: "Cookie", vary: "Accept", "Set-Cookie": "c=3; Path=/" }, cookies: [{ name: "d", value: "4" }] },
  ],
  ["a redirect", { redirect: "https://app.example/after?x=1", cookies: [{ name: "e", value: "5" }] }],
  ["a page", { status: 404, headers: { "Content-Type": "text/html; charset=utf-8" }, body: "<p>no</p>" }],
  ["a header named like a prototype member", { headers: { __proto__: "x", constructor: "y" } as never, body: null }],
];

describe("toResponse", () => {
  it.each(cases)("writes what Headers#append writes: %s", async (_, res) => {
    const response = toResponse(res);
    const expected = appended(res);
    expect([...response.headers]).toEqual([...expected]);
    expect(response.headers.getSetCookie()).toEqual(expected.getSetCookie());
    expect(response.status).toBe(finalizeResponse(res).status);
    expect(await response.text()).toBe(finalizeResponse(res).body ?? "");
  });

  it("keeps every cookie its own Set-Cookie header", () => {
    const response = toResponse({ cookies: [1, 2, 3].map((n) => ({ name: `c${n}`, value: String(n) })) });
    expect(response.headers.getSetCookie().map((c) => c.split(";")[0])).toEqual(["c1=1", "c2=2", "c3=3"]);
  });
});
