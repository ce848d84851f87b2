// Types for check-security-citations.mjs, for the test that proves the checker finds what it should.
export interface Block {
  title: string | null;
  children: Block[];
}
export interface Problem {
  where: string;
  citation: string;
  problem: string;
}
export function blocksOf(fileName: string, text: string): Block;
export function chainExists(root: Block, titles: string[]): boolean;
export function checkCitations(markdown: string, root: string, name?: string): { problems: Problem[]; checked: number };
