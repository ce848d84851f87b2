// biome-ignore-all lint/suspicious/noTemplateCurlyInString: titles are cited as the source writes them, `${label}` included
// The checker behind `npm test`'s security citations step (scripts/check-security-citations.mjs),
// shown to find what it is meant to find: a test file and a page citing it are written to a
// temporary folder, with good citations and each kind of bad one. The check of docs/security.md
// itself is a step of `npm test` (`node scripts/check-security-citations.mjs`).
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { blocksOf, chainExists, checkCitations } from "../../scripts/check-security-citations.mjs";

const source = `
import { describe, it } from "vitest";
describe("outer", () => {
  describe.each([{ name: "Redis" }])("on $name", () => {
    it("keeps \`limit\` exact", () => {});
    it.each(["a"])("refuses %s", () => {});
  });
  it(\`counts \${label}\`, () => {});
  it.skipIf(false)("skipped but named", () => {});
});
export const targets = [{ name: "fuzz target: never throws", property: () => null }];
`;

const page = (cell: string) => `| rule | proved by |\n|---|---|\n| a rule | ${cell} |\n`;

describe("the security citation checker", () => {
  let root: string;
  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), "citations-"));
    await mkdir(join(root, "pkg/test"), { recursive: true });
    await writeFile(join(root, "pkg/test/a.test.ts"), source);
  });
  afterAll(async () => {
    await rm(root, { recursive: true, force: true });
  });
  const check = (cell: string) => checkCitations(page(cell), root);

  it("reads titles as the source writes them: strings, templates, each/skipIf forms and fuzz targets", () => {
    const tree = blocksOf("a.test.ts", source);
    expect(chainExists(tree, ["outer", "on $name", "keeps `limit` exact"])).toBe(true);
    expect(chainExists(tree, ["on $name", "refuses %s"])).toBe(true);
    expect(chainExists(tree, ["outer", "counts ${label}"])).toBe(true);
    expect(chainExists(tree, ["skipped but named"])).toBe(true);
    expect(chainExists(tree, ["fuzz target: never throws"])).toBe(true);
    // nesting is exact: a title given must sit directly inside the one before it
    expect(chainExists(tree, ["outer", "refuses %s"])).toBe(false);
    expect(chainExists(tree, ["on Redis"])).toBe(false);
  });

  it("accepts full chains, left-out outer describes, siblings, remarks and double-backtick titles", () => {
    const { problems, checked } = check(
      "`pkg/test/a.test.ts` › `outer` › `on $name` (Redis) › ``keeps `limit` exact`` and `refuses %s` (a, b); " +
        "`pkg/test/a.test.ts` › `counts ${label}`, `skipped but named`; `pkg/test/a.test.ts`",
    );
    expect(problems).toEqual([]);
    expect(checked).toBe(5);
  });

  it("names each citation that finds no test, with its line and row", () => {
    const { problems } = check("`pkg/test/a.test.ts` › `outer` › `refuses everything`, `counts ${label}`");
    expect(problems).toEqual([
      {
        where: "docs/security.md:3 (row: a rule)",
        citation: "`pkg/test/a.test.ts` › `outer` › `refuses everything`",
        problem: "no test or describe with these titles, nested so",
      },
    ]);
  });

  it("refuses what a reader could not follow: a missing file, a short path, an abbreviation, a stray code span", () => {
    const problems = (cell: string) => check(cell).problems.map((p) => `${p.citation} → ${p.problem}`);
    expect(problems("`pkg/test/gone.test.ts` › `outer`")).toEqual(["`pkg/test/gone.test.ts` › `outer` → no such file"]);
    expect(problems("`a.test.ts` › `outer`")).toEqual([
      "`a.test.ts` › … → a citation starts with the test file's path from the repository root",
    ]);
    expect(problems("`pkg/test/a.test.ts` › `outer` › `counts ...`")).toEqual([
      "`pkg/test/a.test.ts` › `outer` › `counts ...` → no test or describe with these titles, nested so",
    ]);
    expect(problems("`pkg/test/a.test.ts` › `outer`; same › `counts ${label}`")).toEqual([
      "`counts ${label}` → a code span in a 'proved by' cell that is no part of a citation (write it without backticks)",
    ]);
  });

  it("refuses a row with more cells than its header (Markdown drops them, and their citations with them)", () => {
    const { problems } = checkCitations("| rule | proved by |\n|---|---|\n| a rule | prose | `x` |\n", root);
    expect(problems.map((p) => p.problem)).toEqual([
      "the header has 2: a Markdown table drops the cells past its header's",
    ]);
  });
});
