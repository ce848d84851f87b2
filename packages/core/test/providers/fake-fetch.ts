/** A recording stand-in for `fetch`, passed to providers through the `customFetch` option. */
export interface RecordedRequest {
  url: URL;
  method: string;
  headers: Headers;
  body: string | null;
}

export function fakeFetch(answer: (request: RecordedRequest) => Response) {
  const requests: RecordedRequest[] = [];
  const fetchFn = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const request: RecordedRequest = {
      url: new URL(input instanceof Request ? input.url : input),
      method: init?.method ?? "GET",
      headers: new Headers(init?.headers),
      body: init?.body == null ? null : String(init.body),
    };
    requests.push(request);
    return answer(request);
  };
  return { fetch: fetchFn as typeof fetch, requests };
}

export const json = (body: unknown, status = 200) =>
  new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json" } });
