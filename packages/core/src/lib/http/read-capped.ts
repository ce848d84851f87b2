/**
 * The text of a byte stream, or null when it is longer than `limit` bytes (reading stops there and
 * the stream is cancelled, so an endless or huge body costs at most `limit` bytes of memory).
 *
 * @example
 * ```ts
 * const text = await readCapped(response.body, 1024 * 1024)
 * if (text === null) throw new Error("too large")
 * ```
 */
export async function readCapped(body: ReadableStream<Uint8Array> | null, limit: number): Promise<string | null> {
  if (!body) return "";
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel();
      return null;
    }
    chunks.push(value);
  }
  // One decoder across the chunks: a character split between two of them is decoded whole.
  const decoder = new TextDecoder();
  return chunks.map((chunk) => decoder.decode(chunk, { stream: true })).join("") + decoder.decode();
}
