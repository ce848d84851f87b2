// The import switch of scripts/switch-imports.mjs: every form that names a module moves from
// next-auth / @auth/core to Latchkey; anything else that merely contains those words stays.
import { describe, expect, it } from "vitest";
import { switchSource } from "../../scripts/switch-imports.mjs";

describe("switchSource", () => {
  it.each([
    ['import NextAuth from "next-auth"', 'import NextAuth from "@latchkey/next"'],
    ['import "next-auth/jwt"', 'import "@latchkey/next/jwt"'],
    ["import { useSession } from 'next-auth/react'", "import { useSession } from '@latchkey/next/react'"],
    ['export { auth as middleware } from "next-auth"', 'export { auth as middleware } from "@latchkey/next"'],
    ['declare module "next-auth/jwt" {', 'declare module "@latchkey/next/jwt" {'],
    ['const react = await import("next-auth/react")', 'const react = await import("@latchkey/next/react")'],
    ['const gh = require("@auth/core/providers/github")', 'const gh = require("@latchkey/core/providers/github")'],
    ['import type { JWT } from "@auth/core/jwt"', 'import type { JWT } from "@latchkey/core/jwt"'],
  ])("switches %s", (before, after) => {
    expect(switchSource(before)).toBe(after);
  });

  it.each([
    '<a href="https://www.npmjs.com/package/next-auth">next-auth</a>',
    'import { DrizzleAdapter } from "@auth/drizzle-adapter"',
    'import extra from "next-auth-extra"',
    'const label = "from next-auth"',
  ])("leaves %s alone", (text) => {
    expect(switchSource(text)).toBe(text);
  });
});
