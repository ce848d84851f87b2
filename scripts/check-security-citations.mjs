#!/usr/bin/env node
// Checks that every test docs/security.md cites exists, so that a renamed or deleted test cannot
// leave a rule proved by nothing. The citation format is described at the top of
// docs/security.md; in short:
//
//   `packages/core/test/security/csrf.test.ts` › `outer describe` › `test title`
//
// a path from the repository root, then titles from the outside in, each copied exactly as the
// source writes it (placeholders such as `%s`, `$name` or `${label}` kept). Outer describes may be
// left out; the titles given must each sit directly inside the one before. After a title,
// `, ` or ` and ` followed by another code span names a sibling (same parents), and a remark in
// parentheses may follow a title. In a "proved by" column every code span must belong to a
// citation, so nothing that looks checked goes unchecked, and a row may not have more cells than
// its header (Markdown would drop them, citations included).
//
// Usage: node scripts/check-security-citations.mjs [docs/security.md]
// Prints each citation that names no test, with its line and row, and exits 1 if there is one.
import { existsSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";

const TEST_FUNCTIONS = new Set(["describe", "suite", "it", "test"]);
const PATH = /^[\w.@-]+(\/[\w.@-]+)+\.(ts|mts|cts|js|mjs|cjs)$/;
// a remark in parentheses may follow any title: `a` (on Redis) › `b`, `c` (both stores)
const REMARK = String.raw`(?:\([^()]*\)\s*)?`;
const ARROW = new RegExp(String.raw`^\s*${REMARK}›\s*$`);
const SIBLING = new RegExp(String.raw`^\s*${REMARK}(?:,|and|, and)\s*$`);

/**
 * The title a test function is given, as its source writes it: a string's value, a template's
 * text with each `${expression}` kept as written. Null for a title computed at run time.
 */
function titleOf(node) {
  if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) return node.text;
  if (ts.isTemplateExpression(node)) {
    return (
      node.head.text + node.templateSpans.map((span) => `\${${span.expression.getText()}}${span.literal.text}`).join("")
    );
  }
  return null;
}

/** The name a call is made through: `it` for `it(...)`, `it.each(t)(...)`, `describe.skipIf(c)(...)`. */
function testFunctionOf(call) {
  let callee = call.expression;
  while (ts.isCallExpression(callee) || ts.isPropertyAccessExpression(callee)) callee = callee.expression;
  return ts.isIdentifier(callee) && TEST_FUNCTIONS.has(callee.text) ? callee.text : null;
}

/**
 * The blocks of one source file: every `describe` / `it` / `test` call with a title and its
 * children, and every fuzz target (an object literal with a string `name` and a `property`),
 * which the fuzz suite runs as a test of that name.
 */
export function blocksOf(fileName, text) {
  const file = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, true);
  const root = { title: null, children: [] };
  const visit = (node, parent) => {
    let next = parent;
    if (ts.isCallExpression(node) && node.arguments.length >= 2 && testFunctionOf(node)) {
      next = { title: titleOf(node.arguments[0]), children: [] };
      parent.children.push(next);
    } else if (ts.isObjectLiteralExpression(node)) {
      const name = node.properties.find(
        (p) => ts.isPropertyAssignment(p) && p.name.getText() === "name" && titleOf(p.initializer) !== null,
      );
      const property = node.properties.some((p) => p.name?.getText() === "property");
      if (name && property) {
        next = { title: titleOf(name.initializer), children: [] };
        parent.children.push(next);
      }
    }
    ts.forEachChild(node, (child) => visit(child, next));
  };
  visit(file, root);
  return root;
}

/** True when `titles` name a chain of blocks, each directly inside the one before, starting anywhere. */
export function chainExists(root, titles) {
  const from = (block, rest) => {
    if (rest.length === 0) return true;
    return block.children.some((child) => child.title === rest[0] && from(child, rest.slice(1)));
  };
  const anywhere = (block) => from(block, titles) || block.children.some(anywhere);
  return anywhere(root);
}

/** A Markdown line cut into code spans and the text between them (CommonMark's backtick rules). */
export function tokenize(line) {
  const tokens = [];
  let text = "";
  let i = 0;
  while (i < line.length) {
    if (line[i] === "\\" && i + 1 < line.length) {
      text += line.slice(i, i + 2);
      i += 2;
      continue;
    }
    if (line[i] !== "`") {
      text += line[i++];
      continue;
    }
    let run = 0;
    while (line[i + run] === "`") run++;
    let close = -1;
    for (let j = i + run; j < line.length; ) {
      if (line[j] !== "`") {
        j++;
        continue;
      }
      let other = 0;
      while (line[j + other] === "`") other++;
      if (other === run) {
        close = j;
        break;
      }
      j += other;
    }
    if (close === -1) {
      text += line.slice(i, i + run);
      i += run;
      continue;
    }
    if (text) tokens.push({ type: "text", value: text });
    text = "";
    let code = line.slice(i + run, close);
    if (code.length > 1 && code.startsWith(" ") && code.endsWith(" ") && code.trim() !== "") code = code.slice(1, -1);
    tokens.push({ type: "code", value: code });
    i = close + run;
  }
  if (text) tokens.push({ type: "text", value: text });
  return tokens;
}

/** A table row's cells, each as tokens; a `|` inside a code span or escaped does not divide cells. */
function cellsOf(line) {
  const cells = [[]];
  for (const token of tokenize(line.trim().replace(/^\|/, "").replace(/\|$/, ""))) {
    if (token.type === "code") {
      cells.at(-1).push(token);
      continue;
    }
    token.value.split(/(?<!\\)\|/).forEach((part, k) => {
      if (k > 0) cells.push([]);
      if (part) cells.at(-1).push({ type: "text", value: part });
    });
  }
  return cells;
}

/** A cell's tokens as the plain text a reader sees. */
const plain = (tokens) =>
  tokens
    .map((t) => t.value)
    .join("")
    .replace(/\s+/g, " ")
    .trim();

/**
 * The citations in a run of tokens: `path` › `title` › ..., with `, ` / ` and ` siblings after a
 * title. Returns the citations and the code spans that belong to none.
 */
export function citationsIn(tokens) {
  const citations = [];
  const stray = [];
  let i = 0;
  const textAt = (k) => (tokens[k]?.type === "text" ? tokens[k].value : null);
  while (i < tokens.length) {
    const token = tokens[i];
    if (token.type !== "code") {
      i++;
      continue;
    }
    const arrowNext = ARROW.test(textAt(i + 1) ?? "") && tokens[i + 2]?.type === "code";
    if (!PATH.test(token.value)) {
      stray.push({ value: token.value, startsChain: arrowNext });
      i++;
      // a chain that starts without a path is reported once, at its start
      while (arrowNext && ARROW.test(textAt(i) ?? "") && tokens[i + 1]?.type === "code") i += 2;
      continue;
    }
    const path = token.value;
    const titles = [];
    i++;
    if (!arrowNext) {
      citations.push({ path, titles: [] });
      continue;
    }
    while (ARROW.test(textAt(i) ?? "") && tokens[i + 1]?.type === "code") {
      titles.push(tokens[i + 1].value);
      i += 2;
    }
    citations.push({ path, titles: [...titles] });
    while (SIBLING.test(textAt(i) ?? "") && tokens[i + 1]?.type === "code" && !PATH.test(tokens[i + 1].value)) {
      const sibling = [...titles.slice(0, -1), tokens[i + 1].value];
      i += 2;
      // a sibling may open a chain of its own: `a`, `b` › `c`
      while (ARROW.test(textAt(i) ?? "") && tokens[i + 1]?.type === "code") {
        sibling.push(tokens[i + 1].value);
        i += 2;
      }
      citations.push({ path, titles: sibling });
    }
  }
  return { citations, stray };
}

/**
 * Every problem with the citations of `markdown`: a path that is not a file, titles that name no
 * test, a chain that does not start with a path, a code span in a "proved by" cell that belongs
 * to no citation, a row whose cells do not match its header.
 */
export function checkCitations(markdown, root, name = "docs/security.md") {
  const problems = [];
  const trees = new Map();
  const treeOf = (path) => {
    if (!trees.has(path)) {
      const full = join(root, path);
      trees.set(path, existsSync(full) ? blocksOf(path, readFileSync(full, "utf8")) : null);
    }
    return trees.get(path);
  };
  let checked = 0;
  const lines = markdown.split("\n");
  let provedBy = -1;
  let columns = 0;
  for (let n = 0; n < lines.length; n++) {
    const line = lines[n];
    const isRow = line.trimStart().startsWith("|");
    if (!isRow) provedBy = -1;
    const separator = (text) => /^\|[\s|:-]+\|$/.test(text.trim());
    if (isRow && separator(line)) continue;
    const cells = isRow ? cellsOf(line) : [tokenize(line)];
    if (isRow && separator(lines[n + 1] ?? "")) {
      provedBy = cells.findIndex((cell) => plain(cell).toLowerCase() === "proved by");
      columns = cells.length;
      continue;
    }
    const first = plain(cells[0]);
    const row = first.length > 90 ? `${first.slice(0, 90)}…` : first;
    const where = `${name}:${n + 1} (${isRow ? "row" : "line"}: ${row})`;
    if (isRow && provedBy >= 0 && cells.length !== columns) {
      problems.push({
        where,
        citation: `${cells.length} cells`,
        problem: `the header has ${columns}: a Markdown table drops the cells past its header's`,
      });
    }
    cells.forEach((tokens, column) => {
      const { citations, stray } = citationsIn(tokens);
      for (const citation of citations) {
        // a path named in passing (outside a "proved by" cell, without titles) cites nothing
        if (citation.titles.length === 0 && !(isRow && column === provedBy)) continue;
        checked++;
        const shown = [citation.path, ...citation.titles].map((t) => `\`${t}\``).join(" › ");
        const tree = treeOf(citation.path);
        if (tree === null) problems.push({ where, citation: shown, problem: "no such file" });
        else if (citation.titles.length > 0 && !chainExists(tree, citation.titles))
          problems.push({ where, citation: shown, problem: "no test or describe with these titles, nested so" });
      }
      for (const span of stray) {
        if (span.startsChain) {
          problems.push({
            where,
            citation: `\`${span.value}\` › …`,
            problem: "a citation starts with the test file's path from the repository root",
          });
        } else if (isRow && column === provedBy) {
          problems.push({
            where,
            citation: `\`${span.value}\``,
            problem: "a code span in a 'proved by' cell that is no part of a citation (write it without backticks)",
          });
        }
      }
    });
  }
  return { problems, checked };
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const root = join(dirname(fileURLToPath(import.meta.url)), "..");
  const doc = process.argv[2] ?? join(root, "docs/security.md");
  const { problems, checked } = checkCitations(readFileSync(doc, "utf8"), root, relative(root, doc));
  for (const p of problems) console.error(`${p.where}\n  ${p.citation}\n  → ${p.problem}\n`);
  if (problems.length > 0) {
    console.error(
      `security citations: ${problems.length} problem(s) in ${relative(root, doc)} (${checked} citations); the format is at its top`,
    );
    process.exit(1);
  }
  console.log(`security citations: all ${checked} citations in ${relative(root, doc)} name a test`);
}
