// The same static page, not matched by the proxy: the reference for the proxy's cost.
export default function Open() {
  return <p id="page">a page behind the proxy</p>;
}
