/**
 * Property-based fuzzing of every parser on the request path (targets.ts). `npm test` runs a
 * slice of FUZZ_RUNS=300 inputs per target; `npm run fuzz` runs 10,000. A failure prints the
 * shrunk counterexample and the seed to replay it (`FUZZ_SEED=<seed> FUZZ_PATH=<path>`).
 */
import fc from "fast-check";
import { afterAll, describe, it } from "vitest";
import { targets } from "./targets.js";

const RUNS = Number(process.env.FUZZ_RUNS ?? 300);
const SEED = process.env.FUZZ_SEED === undefined ? undefined : Number(process.env.FUZZ_SEED);
const PATH = process.env.FUZZ_PATH;

describe(`fuzzing, ${RUNS} inputs per target`, () => {
  afterAll(async () => {
    for (const target of targets) await target.teardown?.();
  });
  for (const target of targets) {
    it(
      target.name,
      async () => {
        const property = await target.property();
        await fc.assert(property as fc.IAsyncProperty<unknown[]>, {
          numRuns: RUNS,
          seed: SEED,
          path: PATH,
          endOnFailure: !PATH,
        });
      },
      // a generous bound per input: the slowest target makes a loopback HTTP round trip or two
      60_000 + RUNS * 20,
    );
  }
});
