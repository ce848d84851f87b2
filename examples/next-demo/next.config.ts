import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import type { NextConfig } from "next";

// The `next` this app is built with (examples/next-demo-15 has its own Next.js 15).
const nextDir = dirname(createRequire(join(process.cwd(), "package.json")).resolve("next/package.json"));
const nextMajor = Number(
  (createRequire(join(process.cwd(), "package.json"))("next/package.json") as { version: string }).version.split(
    ".",
  )[0],
);

const config: NextConfig = {
  // Native and driver packages are loaded by Node at run time instead of being bundled.
  serverExternalPackages: ["better-sqlite3", "pg", "nodemailer", "@simplewebauthn/server"],
  poweredByHeader: false,
};

// In this repository @latchkey/next is a linked workspace that would find the repository's
// Next.js 16 from its own folder; a Next.js 15 build points every `next/...` import at Next.js 15.
// (An application that installs @latchkey/next from the registry needs none of this.)
// Next.js 16: no Turbopack cache written at build (each test run builds from a clean folder).
if (nextMajor >= 16) config.experimental = { turbopackFileSystemCacheForBuild: false } as NextConfig["experimental"];
if (nextMajor < 16) {
  // The Next.js 16 build type-checks this same source; the copy built with Next.js 15 skips it.
  config.typescript = { ignoreBuildErrors: true };
  config.webpack = (webpackConfig: { resolve: { alias: Record<string, string> } }) => {
    webpackConfig.resolve.alias = { ...webpackConfig.resolve.alias, next: nextDir };
    return webpackConfig;
  };
}

export default config;
