/** Types of scripts/check-standalone.mjs, for the TypeScript tests that import it. */

/** One file to check: its path relative to the repository root and its text. */
export interface StandaloneFile {
  path: string;
  text: string;
}

/** One citation of a file outside the repository; `line` is 1-based, `text` the line trimmed. */
export interface StandaloneHit {
  path: string;
  line: number;
  what: string;
  text: string;
}

/** What is checked by default, relative to the repository root. */
export const DEFAULT_ROOTS: readonly string[];
/** True for paths the check skips: dependencies, git's own files and vendors' API descriptions. */
export function isExcluded(path: string): boolean;
/** The citations in `files`, sorted by path and line. Pure: no file system. */
export function findCitations(files: readonly StandaloneFile[]): StandaloneHit[];
/** Text files under `roots` (directories or files, relative to `cwd`). */
export function readTree(roots?: readonly string[], cwd?: string): StandaloneFile[];
