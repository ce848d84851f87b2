/**
 * Which IP addresses are on the public Internet: what a server may fetch when a stranger names
 * the URL (a client's metadata document), never this machine, its private networks, link-local
 * or cloud metadata addresses, or the ranges set aside for documentation, benchmarks and
 * multicast (RFC 6890's special-purpose registries; IPv4-mapped, NAT64 and 6to4 IPv6 addresses
 * are judged, and refused, as the IPv4 address they carry could be anything).
 */

/** The IPv4 ranges that are not public: [first octets as a number, prefix length]. */
const IPV4_SPECIAL: readonly [string, number][] = [
  ["0.0.0.0", 8],
  ["10.0.0.0", 8],
  ["100.64.0.0", 10],
  ["127.0.0.0", 8],
  ["169.254.0.0", 16],
  ["172.16.0.0", 12],
  ["192.0.0.0", 24],
  ["192.0.2.0", 24],
  ["192.88.99.0", 24],
  ["192.168.0.0", 16],
  ["198.18.0.0", 15],
  ["198.51.100.0", 24],
  ["203.0.113.0", 24],
  ["224.0.0.0", 4],
  ["240.0.0.0", 4],
];

/** The 32-bit value of a dotted IPv4 address, or undefined. */
function ipv4Value(text: string): number | undefined {
  const parts = text.split(".");
  if (parts.length !== 4) return undefined;
  let value = 0;
  for (const part of parts) {
    if (!/^\d{1,3}$/.test(part) || Number(part) > 255) return undefined;
    value = value * 256 + Number(part);
  }
  return value;
}

const IPV4_RANGES = IPV4_SPECIAL.map(([base, bits]) => {
  const size = 2 ** (32 - bits);
  const start = ipv4Value(base) ?? 0;
  return [start, start + size] as const;
});

function isPublicIpv4(value: number): boolean {
  return !IPV4_RANGES.some(([start, end]) => value >= start && value < end);
}

/** The eight 16-bit groups of an IPv6 address (a trailing dotted IPv4 part read as two), or undefined. */
function ipv6Groups(text: string): number[] | undefined {
  let address = text.replace(/^\[|\]$/g, "").toLowerCase();
  const zone = address.indexOf("%");
  if (zone >= 0) address = address.slice(0, zone);
  // A dotted IPv4 tail ("::ffff:127.0.0.1") is the last two groups.
  const tail = /:(\d{1,3}(?:\.\d{1,3}){3})$/.exec(address);
  if (tail?.[1]) {
    const v4 = ipv4Value(tail[1]);
    if (v4 === undefined) return undefined;
    const hex = (n: number) => n.toString(16);
    address = `${address.slice(0, tail.index + 1)}${hex(Math.floor(v4 / 65536))}:${hex(v4 % 65536)}`;
  }
  const halves = address.split("::");
  if (halves.length > 2) return undefined;
  const read = (part: string | undefined) =>
    part ? part.split(":").map((g) => (/^[0-9a-f]{1,4}$/.test(g) ? Number.parseInt(g, 16) : Number.NaN)) : [];
  const head = read(halves[0]);
  const rest = read(halves[1]);
  let groups: number[];
  if (halves.length === 2) {
    const missing = 8 - head.length - rest.length;
    if (missing < 1) return undefined;
    groups = [...head, ...new Array<number>(missing).fill(0), ...rest];
  } else {
    groups = head;
  }
  return groups.length === 8 && groups.every((g) => Number.isInteger(g)) ? groups : undefined;
}

function isPublicIpv6(groups: number[]): boolean {
  const [a = 0, b = 0] = groups;
  // Only global unicast (2000::/3) is public at all.
  if (a < 0x2000 || a > 0x3fff) return false;
  // 2001::/23 (IETF protocol assignments: Teredo, benchmarking, ORCHID...), 2001:db8::/32 (documentation).
  if (a === 0x2001 && (b < 0x0200 || b === 0x0db8)) return false;
  // 2002::/16 (6to4: an IPv4 address inside), 3fff::/20 (documentation).
  if (a === 0x2002 || (a === 0x3fff && b < 0x1000)) return false;
  return true;
}

/**
 * True when `address` (an IPv4 or IPv6 address in its textual form, brackets allowed) is a public
 * Internet address; false for every special-purpose one, and for anything that is not an address.
 *
 * @example
 * ```ts
 * isPublicAddress("93.184.215.14") // true
 * isPublicAddress("169.254.169.254") // false (cloud metadata)
 * isPublicAddress("::ffff:127.0.0.1") // false
 * ```
 */
export function isPublicAddress(address: string): boolean {
  const v4 = ipv4Value(address);
  if (v4 !== undefined) return isPublicIpv4(v4);
  const groups = ipv6Groups(address);
  return groups !== undefined && isPublicIpv6(groups);
}
