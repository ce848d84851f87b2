// What an authenticator app computes (RFC 6238 over node:crypto), for the browser tests of both demos.
import { createHmac } from "node:crypto";

/** The six-digit code an authenticator app holding `secret` (base32) shows at time step `step`. */
export function totpAt(secret: string, step: number): string {
  const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";
  let bits = "";
  for (const char of secret.replace(/=+$/, "")) {
    const value = alphabet.indexOf(char.toUpperCase());
    if (value < 0) throw new Error(`not base32: ${secret}`);
    bits += value.toString(2).padStart(5, "0");
  }
  const key = Buffer.from((bits.match(/.{8}/g) ?? []).map((byte) => Number.parseInt(byte, 2)));
  const counter = Buffer.alloc(8);
  counter.writeBigUInt64BE(BigInt(step));
  const mac = createHmac("sha1", key).update(counter).digest();
  const offset = (mac[mac.length - 1] as number) & 0x0f;
  return String((mac.readUInt32BE(offset) & 0x7fffffff) % 1_000_000).padStart(6, "0");
}

/** The current time step (30 s). */
export const stepNow = () => Math.floor(Date.now() / 1000 / 30);
