// Matched by the proxy (proxy.ts): the page itself is static.
export default function Protected() {
  return <p id="page">a page behind the proxy</p>;
}
