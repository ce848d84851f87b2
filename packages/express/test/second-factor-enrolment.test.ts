/**
 * Adversarial review (feat-attack): TOTP enrolment confirmed over the real stores. Concurrent
 * confirmations of one waiting enrolment with one code (a double submit, or a client racing
 * itself) must activate the factor once: one answer shows backup codes, and they are the ones
 * stored. Before the fix every racer "succeeded" with its own ten codes, and on PostgreSQL the
 * losers' delete-and-insert could fail on the primary key.
 */
import type { AuthConfig } from "@latchkey/core";
import TOTP from "@latchkey/core/providers/totp";
import { confirmTotpEnrolment, secondFactorStatus, startTotpEnrolment } from "@latchkey/core/second-factor";
import { describe, expect, it } from "vitest";
import { totpAt } from "./helpers.js";
import { backends } from "./stores.js";

describe.each(await backends("attack2fa", ["postgres", "mariadb", "redis"]))(
  "rule: an enrolment is confirmed once, with %s",
  (_name, up, open) => {
    it.skipIf(!up)(
      "30 concurrent confirmations with one code: exactly one shows backup codes, and they are stored",
      async () => {
        const backend = await open();
        try {
          const config: AuthConfig = {
            secret: "attack-second-factor-enrolment-secret-0123456789",
            adapter: backend.adapter,
            logger: { error() {}, warn() {}, debug() {} },
            rateLimit: false,
            providers: [TOTP({ issuer: "Enrolment Race" })],
          };
          const { secret } = await startTotpEnrolment(config, { id: "u-race", label: "race@example.com" });
          const code = totpAt(secret, Math.floor(Date.now() / 30_000));
          const answers = await Promise.allSettled(
            Array.from({ length: 30 }, () => confirmTotpEnrolment(config, "u-race", code)),
          );
          // Never a thrown error: a racer that lost is "invalid".
          expect(answers.filter((a) => a.status === "rejected")).toEqual([]);
          const values = answers.map(
            (a) => (a as PromiseFulfilledResult<Awaited<ReturnType<typeof confirmTotpEnrolment>>>).value,
          );
          const accepted = values.filter((v) => v.ok);
          expect(accepted.length).toBe(1);
          expect(values.filter((v) => !v.ok).every((v) => !v.ok && v.reason === "invalid")).toBe(true);
          expect(await secondFactorStatus(config, "u-race")).toEqual({
            active: true,
            pending: false,
            backupCodesLeft: 10,
          });
        } finally {
          await backend.close();
        }
      },
    );
  },
);
