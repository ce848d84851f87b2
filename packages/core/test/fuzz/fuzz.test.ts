/**
 * Property-based fuzzing of every parser on the request path (targets.ts). `npm test` runs
 * FUZZ_RUNS=300 inputs per target from a fixed seed, so a run is reproducible and a red build is
 * the code's doing, not the dice's; `npm run fuzz` runs 10,000 from a random seed
 * (FUZZ_SEED=random). Both print their seed. A failure prints the shrunk counterexample and the
 * seed and path to replay it (`FUZZ_SEED=<seed> FUZZ_PATH=<path>`).
 */
import fc from "fast-check";
import { afterAll, beforeAll, describe, inject, it } from "vitest";
import { targets } from "./targets.js";

const RUNS = Number(process.env.FUZZ_RUNS ?? 300);
// The seed of `npm test`. Change it only on purpose, and keep the new one green.
const FIXED_SEED = 1_209_573;

/** The seed of this run: FUZZ_SEED as a number, a fresh one for FUZZ_SEED=random, else the fixed one. */
function seedOf(value: string | undefined): number {
  if (value === undefined || value === "") return FIXED_SEED;
  if (value === "random") return (Math.random() * 0x7fffffff) | 0;
  const seed = Number(value);
  if (!Number.isInteger(seed)) throw new Error(`FUZZ_SEED must be an integer or "random"; received ${value}`);
  return seed;
}

const SEED = seedOf(process.env.FUZZ_SEED);
const PATH = process.env.FUZZ_PATH;

describe(`fuzzing, ${RUNS} inputs per target, seed ${SEED}`, () => {
  beforeAll(() => {
    console.info(`[fuzz] seed ${SEED}, ${RUNS} inputs per target (replay: FUZZ_SEED=${SEED} FUZZ_RUNS=${RUNS})`);
  });
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
      (60_000 + RUNS * 20) * inject("timeScale"),
    );
  }
});
