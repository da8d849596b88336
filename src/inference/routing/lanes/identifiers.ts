/**
 * The shapes of the whitespace-separated tokens of a text that only program code, configuration
 * and shell commands have, read from the raw text (before the word features fold case and split at
 * punctuation, which turns `CrashLoopBackOff` into one unseen word and `main.tf` into two).
 *
 * Why: an operations question ("kubectl get pods shows CrashLoopBackOff, why?") is mostly words
 * the training data never had, so its word and character features weigh almost nothing and the
 * shape of a short English sentence decides (`general`). These shapes recur across every program
 * language and tool, so the model learns them from the code it was trained on and they carry over
 * to identifiers, files, flags and keys it never saw.
 */

/** Token shapes, in the order of IdentifierCounts. */
export const IDENTIFIER_KINDS = ['camel', 'snake', 'file', 'flag', 'path', 'key', 'brand'] as const;

/** Counts per kind, IDENTIFIER_KINDS order (reused by the caller). */
export type IdentifierCounts = Int32Array;

/** File extensions of code, configuration and logs (lower case); a token `name.<ext>` is a file. */
const EXTENSIONS = new Set([
  'yaml', 'yml', 'json', 'toml', 'ini', 'conf', 'cfg', 'env', 'tf', 'tfvars', 'hcl', 'xml', 'properties', 'service', 'timer',
  'socket', 'lock', 'log', 'sh', 'bash', 'ps1', 'py', 'js', 'mjs', 'cjs', 'ts', 'tsx', 'jsx', 'go', 'rs', 'rb', 'php', 'java', 'kt',
  'cs', 'cpp', 'hpp', 'h', 'c', 'swift', 'sql', 'gradle', 'pem', 'crt', 'key', 'sock',
]);

const isUpper = (c: number) => c >= 65 && c <= 90;
const isLower = (c: number) => c >= 97 && c <= 122;
const isLetter = (c: number) => isUpper(c) || isLower(c);
const isSpace = (c: number) => c === 32 || c === 9 || c === 10 || c === 13;
/** Quotes, brackets and emphasis around a token: `"main.tf"` is the file main.tf. */
const isQuote = (c: number) => c === 34 || c === 39 || c === 96 || c === 40 || c === 41 || c === 91 || c === 93 || c === 42;
/** ... and sentence punctuation after it (but a leading dot belongs to `.env`, `.github/`). */
const isTrailer = (c: number) => isQuote(c) || c === 44 || c === 46 || c === 63 || c === 33 || c === 59 || c === 58;

/** Adds the identifier shapes of `text`'s tokens to `counts` (which the caller zeroes). */
export function countIdentifiers(text: string, counts: IdentifierCounts): void {
  let lineStart = true;
  let i = 0;
  const n = text.length;
  while (i < n) {
    const c = text.charCodeAt(i);
    if (isSpace(c)) {
      if (c === 10) lineStart = true;
      i++;
      continue;
    }
    // Most tokens are words: only one with a capital after its first character, a _ . or /, or
    // starting with - ~ . / _ can have a shape, so only those are looked at again (this runs on
    // every classified request).
    let special = c === 45 || c === 126 || c === 46 || c === 47 || c === 95;
    let end = i + 1;
    while (end < n) {
      const d = text.charCodeAt(end);
      if (isSpace(d)) break;
      if (d < 97 && ((d >= 65 && d <= 90) || d === 95 || d === 46 || d === 47)) special = true;
      end++;
    }
    if (lineStart && isKey(text, i, end)) counts[5] = (counts[5] as number) + 1;
    // A list item's dash ("- name: x") still leaves the key at the start of its line.
    lineStart = lineStart && end - i === 1 && c === 45;
    if (special) {
      if (isShortFlag(text, i, end)) counts[3] = (counts[3] as number) + 1;
      else classifyToken(text, i, end, counts);
    }
    i = end;
  }
}

/** Characters that make a token `-x` before them a negative term, not a flag (`-x + 3 = 5`). */
const OPERATORS = new Set('+-=*/^<>)±×÷≤≥·'.split('').map((ch) => ch.charCodeAt(0)));

/**
 * `-n`, `-rn`, `-name`: a dash and letters, followed by another token that does not start with an
 * operator (`grep -n "deprecated"`, `docker run -p 8080:80`), so that `-x + 3` and a final `= -x` stay
 * mathematics.
 */
function isShortFlag(text: string, from: number, to: number): boolean {
  if (to - from < 2 || text.charCodeAt(from) !== 45) return false;
  for (let i = from + 1; i < to; i++) if (!isLetter(text.charCodeAt(i))) return false;
  let next = to;
  while (next < text.length && isSpace(text.charCodeAt(next))) next++;
  return next < text.length && !OPERATORS.has(text.charCodeAt(next));
}

/** `name:` ending its token (or `name: value`) at the start of a line: a YAML, INI or header key. */
function isKey(text: string, from: number, to: number): boolean {
  if (to - from < 2 || text.charCodeAt(to - 1) !== 58) return false;
  const first = text.charCodeAt(from);
  if (!isLetter(first) && first !== 95) return false;
  for (let i = from + 1; i < to - 1; i++) {
    const c = text.charCodeAt(i);
    if (!(isLetter(c) || (c >= 48 && c <= 57) || c === 95 || c === 45 || c === 46)) return false;
  }
  return true;
}

function classifyToken(text: string, start: number, end: number, counts: IdentifierCounts): void {
  // Long flags keep their dashes, so take them before trimming the wrappers.
  if (end - start >= 3 && text.charCodeAt(start) === 45 && text.charCodeAt(start + 1) === 45 && isLetter(text.charCodeAt(start + 2))) {
    counts[3] = (counts[3] as number) + 1;
    return;
  }
  while (start < end && isQuote(text.charCodeAt(start))) start++;
  while (end > start && isTrailer(text.charCodeAt(end - 1))) end--;
  if (end - start < 2) return;

  // A possessive is the name it belongs to: McDonald's is McDonald.
  if (end - start > 2 && text.charCodeAt(end - 1) === 115 && (text.charCodeAt(end - 2) === 39 || text.charCodeAt(end - 2) === 0x2019)) end -= 2;
  let humps = 0;
  let firstHump = -1;
  let onlyLetters = true;
  let snake = false;
  let slashes = 0;
  let letters = 0;
  let lastDot = -1;
  for (let i = start; i < end; i++) {
    const c = text.charCodeAt(i);
    if (isLetter(c)) letters++;
    else onlyLetters = false;
    if (i > start) {
      const p = text.charCodeAt(i - 1);
      // useState, CrashLoopBackOff; OOMKilled, HTTPServer (capitals, then a capitalised word; not
      // the plural of an acronym, CEOs)
      if (isLower(p) && isUpper(c)) {
        humps++;
        if (firstHump < 0) firstHump = i;
      } else if (isUpper(p) && isUpper(c) && i + 2 < end && isLower(text.charCodeAt(i + 1)) && isLower(text.charCodeAt(i + 2))) humps += 2;
      if (c === 95 && isLetter(p) && i + 1 < end && isLetter(text.charCodeAt(i + 1))) snake = true;
    }
    if (c === 47) slashes++;
    else if (c === 46) lastDot = i;
  }
  if (humps > 0) {
    const kind = isBrand(text, start, end, humps, firstHump, onlyLetters) ? 6 : 0;
    counts[kind] = (counts[kind] as number) + 1;
  }
  if (snake) counts[1] = (counts[1] as number) + 1;
  // name.ext or .ext, the name ending in a letter, _ or - (not 3.5, not e.g); no extension is
  // longer than 10 letters, so no long token is sliced.
  const beforeDot = lastDot > start ? text.charCodeAt(lastDot - 1) : 0;
  const extLength = end - lastDot - 1;
  if (lastDot >= start && extLength > 0 && extLength <= 10 && (lastDot === start || isLetter(beforeDot) || beforeDot === 95 || beforeDot === 45)) {
    if (EXTENSIONS.has(text.slice(lastDot + 1, end).toLowerCase())) counts[2] = (counts[2] as number) + 1;
  }
  const c0 = text.charCodeAt(start);
  // /etc/nginx, ~/.ssh, ./deploy.sh, .github/workflows: rooted or two levels deep, with letters.
  if (letters > 0 && slashes > 0 && ((c0 === 47 && isLetter(text.charCodeAt(start + 1))) || c0 === 126 || (c0 === 46 && text.charCodeAt(start + 1) === 47) || slashes >= 2)) {
    counts[4] = (counts[4] as number) + 1;
  }
}

/** The second words of two-word names that are exception classes (TypeError, IOException), not brands. */
const ERROR_SUFFIXES = ['Error', 'Exception'];

/**
 * A name in the shape of a company's or product's: two capitalised words run together (PayPal,
 * YouTube, PlayStation) or one lower-case letter before a capitalised word (iPhone, eBay), letters
 * only. Everyday questions name them ("Is YouTube Premium worth it?"), so they are a kind of their
 * own rather than camelCase, which says code; the code identifiers of the same shape (HashMap,
 * RollingUpdate) are left to the words around them, and exception classes and a word joined to an
 * acronym (SwiftUI, GraphQL) stay camelCase, except an operating system's "OS" (macOS, ChromeOS).
 */
function isBrand(text: string, start: number, end: number, humps: number, firstHump: number, onlyLetters: boolean): boolean {
  if (!onlyLetters) return false;
  // An operating system is a word and "OS" (macOS, iPadOS, watchOS, ChromeOS), which everyday
  // questions name as often as any product; isIOS, an acronym before it, is code.
  if (end - start > 3 && text.charCodeAt(end - 2) === 79 && text.charCodeAt(end - 1) === 83 && isLower(text.charCodeAt(end - 3))) return true;
  if (humps !== 1) return false;
  if (!isUpper(text.charCodeAt(start)) && firstHump !== start + 1) return false;
  const second = text.slice(firstHump, end);
  // A word and an acronym (SwiftUI, GraphQL, NodeJS) names a technology; iOS is a product.
  if (firstHump > start + 1 && second.length >= 2 && isUpper(second.charCodeAt(1))) return false;
  return !ERROR_SUFFIXES.some((suffix) => second.endsWith(suffix));
}
