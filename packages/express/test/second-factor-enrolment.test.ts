/**
 * Adversarial review (feat-attack): TOTP enrolment over the real stores, raced the way a
 * double-clicked button or a client racing itself does.
 *
 * - Concurrent confirmations of one waiting enrolment with one code must activate the factor
 *   once: one answer shows backup codes, and they are the ones stored. Before the fix every racer
 *   "succeeded" with its own ten codes, and on PostgreSQL and MariaDB most failed on the primary key.
 * - Concurrent starts must all answer. Before the fix the SQL adapter's delete-then-insert made
 *   most of them fail on the primary key (PostgreSQL, and sometimes MariaDB).
 */
import type { AuthConfig } from "@latchkey/core";
import type { Adapter } from "@latchkey/core/adapters";
import TOTP from "@latchkey/core/providers/totp";
import {
  confirmTotpEnrolment,
  regenerateBackupCodes,
  secondFactorStatus,
  startTotpEnrolment,
} from "@latchkey/core/second-factor";
import { describe, expect, it } from "vitest";
import { totpAt } from "./helpers.js";
import { type Backend, backends } from "./stores.js";

const configOf = (adapter: Adapter): AuthConfig => ({
  secret: "attack-second-factor-enrolment-secret-0123456789",
  adapter,
  logger: { error() {}, warn() {}, debug() {} },
  rateLimit: false,
  providers: [TOTP({ issuer: "Enrolment Race" })],
});

/** Runs `work` over a fresh store, closed afterwards; `wrap` may watch the adapter's calls. */
async function withStore(
  open: () => Promise<Backend>,
  work: (config: AuthConfig) => Promise<void>,
  wrap: (adapter: Adapter) => Adapter = (adapter) => adapter,
) {
  const backend = await open();
  try {
    await work(configOf(wrap(backend.adapter)));
  } finally {
    await backend.close();
  }
}

const stepNow = () => Math.floor(Date.now() / 30_000);

describe.each(await backends("attack2fa", ["postgres", "mariadb", "redis"]))(
  "rule: an enrolment is confirmed once, and concurrent starts never fail, with %s",
  (_name, up, open) => {
    it.skipIf(!up)(
      "30 concurrent confirmations with one code: exactly one shows backup codes, and they are stored",
      () =>
        withStore(open, async (config) => {
          const { secret } = await startTotpEnrolment(config, { id: "u-race", label: "race@example.com" });
          const code = totpAt(secret, stepNow());
          const answers = await Promise.allSettled(
            Array.from({ length: 30 }, () => confirmTotpEnrolment(config, "u-race", code)),
          );
          // Never a thrown error: a racer that lost is "invalid".
          expect(answers.filter((a) => a.status === "rejected")).toEqual([]);
          const values = answers.map(
            (a) => (a as PromiseFulfilledResult<Awaited<ReturnType<typeof confirmTotpEnrolment>>>).value,
          );
          expect(values.filter((v) => v.ok).length).toBe(1);
          expect(values.filter((v) => !v.ok).every((v) => !v.ok && v.reason === "invalid")).toBe(true);
          expect(await secondFactorStatus(config, "u-race")).toEqual({
            active: true,
            pending: false,
            backupCodesLeft: 10,
          });
        }),
    );

    it.skipIf(!up)(
      "20 starts at once (a double-clicked button): all answer, and exactly one stored secret confirms",
      () =>
        withStore(open, async (config) => {
          const starts = await Promise.allSettled(
            Array.from({ length: 20 }, () => startTotpEnrolment(config, { id: "u-start", label: "start@example.com" })),
          );
          expect(starts.filter((s) => s.status === "rejected")).toEqual([]);
          const secrets = starts.map((s) => (s as PromiseFulfilledResult<{ secret: string }>).value.secret);
          const confirmed = [];
          for (const secret of secrets)
            confirmed.push((await confirmTotpEnrolment(config, "u-start", totpAt(secret, stepNow()))).ok);
          expect(confirmed.filter(Boolean).length).toBe(1);
        }),
    );
  },
);

describe.each(await backends("r3start2fa", ["memory", "postgres", "sqlite", "mariadb", "redis"]))(
  "rule: starting an enrolment never overwrites a confirmed factor, with %s",
  (_name, up, open) => {
    it.skipIf(!up)(
      "attack: 30 starts racing a confirmation (launched as it writes the active factor): the confirmed factor stays, each start is refused or came first",
      () => {
        // The starts go out at the very moment the confirmation writes the active factor: each
        // reads the record before or after that write, and writes after it.
        let race: Promise<PromiseSettledResult<unknown>[]> | undefined;
        let config: AuthConfig;
        const watch = (adapter: Adapter): Adapter => ({
          ...adapter,
          setSecondFactor(record, backupCodes, expected) {
            if (record.active && !race)
              race = Promise.allSettled(
                Array.from({ length: 30 }, () =>
                  startTotpEnrolment(config, { id: record.userId, label: "race@example.com" }),
                ),
              );
            return adapter.setSecondFactor?.(record, backupCodes, expected);
          },
        });
        return withStore(
          open,
          async (c) => {
            config = c;
            const { secret } = await startTotpEnrolment(config, { id: "u-cas", label: "race@example.com" });
            const confirmed = await confirmTotpEnrolment(config, "u-cas", totpAt(secret, stepNow()));
            expect(confirmed.ok).toBe(true);
            const starts = (await race) ?? [];
            expect(starts).toHaveLength(30);
            // A start either wrote before the activation (the confirmation's write then replaced it)
            // or was refused; never any other error.
            for (const start of starts) {
              if (start.status === "rejected")
                expect(String(start.reason)).toMatch(/already has an active second factor/);
            }
            expect(await secondFactorStatus(config, "u-cas")).toEqual({
              active: true,
              pending: false,
              backupCodesLeft: 10,
            });
            // The active secret is the confirmed one: its next code is accepted.
            expect((await regenerateBackupCodes(config, "u-cas", totpAt(secret, stepNow() + 1))).ok).toBe(true);
          },
          watch,
        );
      },
    );

    it.skipIf(!up)(
      "honest: a restart replaces a waiting enrolment; once confirmed, a start is refused and the factor stays",
      () =>
        withStore(open, async (config) => {
          const user = { id: "u-honest", label: "honest@example.com" };
          const first = await startTotpEnrolment(config, user);
          const second = await startTotpEnrolment(config, user);
          expect((await confirmTotpEnrolment(config, user.id, totpAt(first.secret, stepNow()))).ok).toBe(false);
          expect((await confirmTotpEnrolment(config, user.id, totpAt(second.secret, stepNow()))).ok).toBe(true);
          await expect(startTotpEnrolment(config, user)).rejects.toThrow(/already has an active second factor/);
          expect(await secondFactorStatus(config, user.id)).toEqual({
            active: true,
            pending: false,
            backupCodesLeft: 10,
          });
        }),
    );
  },
);
