import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import type { CanonicalChatRequest, CanonicalMessage } from '../../canonical/chat.ts';
import { documentText } from '../../canonical/documents.ts';
import { IDENTIFIER_KINDS, countIdentifiers } from './identifiers.ts';
import { LEXICON } from './lexicon.ts';

/**
 * The features of the text lane model, shared by the training script and the classifier so both
 * see exactly the same thing. Every feature is hashed (FNV-1a, one seed per kind) into one of
 * 2^BUCKET_BITS buckets; no string is built per feature, so the cost is a few hash steps per
 * character of the (capped) text.
 *
 * Kinds: word unigrams and bigrams (Han and kana characters count as one-character words, since
 * those scripts do not separate words with spaces), character trigrams (digits folded to 0,
 * whitespace folded to one space), the shape of the text (symbol, digit and line statistics, code
 * fences, accented letters, script), the shapes of code identifiers (camelCase, snake_case, file names, flags,
 * paths, keys: lanes/identifiers.ts), the language that `eld` detects, and counts of the lexicon's
 * words per lane.
 */

export const BUCKET_BITS = 18;
const MASK = (1 << BUCKET_BITS) - 1;

/** The classifier reads at most the first HEAD_CHARS and the last TAIL_CHARS of the message. */
export const HEAD_CHARS = 1200;
export const TAIL_CHARS = 400;
/** Language identification reads the first LANG_CHARS characters. */
const LANG_CHARS = 200;
/**
 * The fewest letters a text needs for `eld` to make it `multilingual` over the model's `general`.
 * On two or three short words `eld` rests on a dozen n-grams and calls some English reliably
 * another language far ahead of English, which it then leaves out of its scores ("Hello mate" and
 * "Wave hello." Italian, "Tell Anna hello." Norwegian, 9 to 13 letters); on the data sets the rule
 * changed no text that short to its right lane. Below this the model decides alone, with the
 * detection among its features: short greetings in another language ("Hola amigo", "Kiitos
 * paljon") are `multilingual` by the model itself.
 */
export const LANGUAGE_RULE_MIN_LETTERS = 16;

const SEED_WORD = 0x1b873593;
const SEED_BIGRAM = 0x5bd1e995;
const SEED_CHAR = 0x27d4eb2f;
const SEED_TAG = 0x165667b1;

/** What the classifier reads of a request. */
export interface LaneText {
  /** The latest user message, capped with capText. */
  readonly text: string;
  /**
   * The previous user message, capped likewise; in a conversation's first turn its system text
   * ('' when there is neither).
   */
  readonly previous: string;
}

/** Occurrences (bucket, value), in a buffer reused from call to call. */
export class FeatureBuffer {
  index = new Int32Array(8192);
  value = new Float32Array(8192);
  length = 0;
  /**
   * Set by extractFeatures when the text is plainly not English: mostly in a non-Latin script, or
   * a reliable detection of another language clearly ahead of English.
   */
  notEnglish = false;
  /**
   * Set by extractTextFeatures when the text has fewer than LANGUAGE_RULE_MIN_LETTERS letters: too
   * short for a detection of another language to override the model (see there).
   */
  tooShortForLanguageRule = false;

  reset(): void {
    this.length = 0;
    this.notEnglish = false;
    this.tooShortForLanguageRule = false;
  }

  push(bucket: number, value: number): void {
    if (this.length === this.index.length) {
      const index = new Int32Array(this.length * 2);
      index.set(this.index);
      const values = new Float32Array(this.length * 2);
      values.set(this.value);
      this.index = index;
      this.value = values;
    }
    this.index[this.length] = bucket;
    this.value[this.length] = value;
    this.length++;
  }

  /** Sets the value of occurrences [from, length) to `value`. */
  fill(from: number, value: number): void {
    this.value.fill(value, from, this.length);
  }
}

/**
 * The text of a message's parts (joined by newlines), or, when longer than HEAD_CHARS + TAIL_CHARS,
 * only its head and tail: the classifier never reads more, so its cost does not grow with the
 * message.
 */
export function capText(parts: readonly string[]): string {
  let total = parts.length - 1;
  for (const p of parts) total += p.length;
  if (total <= HEAD_CHARS + TAIL_CHARS) return parts.join('\n');
  let head = '';
  for (const p of parts) {
    if (head.length >= HEAD_CHARS) break;
    head += (head === '' ? '' : '\n') + p.slice(0, HEAD_CHARS - head.length);
  }
  let tail = '';
  for (let i = parts.length - 1; i >= 0 && tail.length < TAIL_CHARS; i--) {
    const p = parts[i] as string;
    tail = p.slice(Math.max(0, p.length - (TAIL_CHARS - tail.length))) + (tail === '' ? '' : '\n' + tail);
  }
  return `${head}\n${tail}`;
}

function hashString(seed: number, s: string): number {
  let h = seed ^ 0x811c9dc5;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193);
  return h;
}

function isIdeograph(c: number): boolean {
  return (c >= 0x3040 && c <= 0x30ff) || (c >= 0x3400 && c <= 0x4dbf) || (c >= 0x4e00 && c <= 0x9fff) || (c >= 0xf900 && c <= 0xfaff);
}

/** Letters, digits (already folded to '0'), '_' and non-ASCII characters outside punctuation blocks. */
function isWordChar(c: number): boolean {
  if (c < 128) return (c >= 97 && c <= 122) || c === 48 || c === 95;
  if (c <= 0xbf) return c === 0xaa || c === 0xb5 || c === 0xba; // Latin-1 punctuation: ¿ ¡ « » ...
  if (c >= 0x2000 && c <= 0x2bff) return false; // general punctuation, arrows, maths operators
  if (c >= 0x3000 && c <= 0x303f) return false; // CJK punctuation
  if (c >= 0xff00 && c <= 0xff0f) return false;
  return !isIdeograph(c);
}

const SYMBOLS = new Set('{}[]()<>;=+-*/\\|&^%$#@`~:'.split('').map((c) => c.charCodeAt(0)));

/** Hashes of the lexicon's words (as word unigrams or ideograph bigrams) -> lane index. */
const LEXICON_KINDS = Object.keys(LEXICON) as (keyof typeof LEXICON)[];
const lexiconOf = new Map<number, number>();
/**
 * The first words of the two-word entries, by the low 10 bits of their hash: a word bigram is
 * looked up only after a word that may start one (a map lookup per word is a tenth of the cost).
 */
const phraseStart = new Uint8Array(1024);
for (const [kind, words] of Object.entries(LEXICON)) {
  for (const word of words) {
    lexiconOf.set(wordHash(word), LEXICON_KINDS.indexOf(kind as keyof typeof LEXICON));
    const space = word.indexOf(' ');
    if (space > 0) phraseStart[wordHash(word.slice(0, space)) & 1023] = 1;
  }
}

function wordHash(word: string): number {
  // A two-word entry ("helm chart") matches the word bigram: a word with an everyday sense counts
  // only in the company that gives it its technical one.
  const space = word.indexOf(' ');
  if (space > 0) return bigramHash(wordHash(word.slice(0, space)), wordHash(word.slice(space + 1)));
  const c0 = word.charCodeAt(0);
  if (isIdeograph(c0) && word.length === 2) {
    const a = Math.imul((SEED_WORD ^ 0x811c9dc5) ^ c0, 0x01000193);
    const b = Math.imul((SEED_WORD ^ 0x811c9dc5) ^ word.charCodeAt(1), 0x01000193);
    return bigramHash(a, b);
  }
  let h = SEED_WORD ^ 0x811c9dc5;
  for (let i = 0; i < word.length; i++) {
    const c = word.charCodeAt(i);
    h = Math.imul(h ^ (c >= 48 && c <= 57 ? 48 : c), 0x01000193);
  }
  return h;
}

function bigramHash(prev: number, h: number): number {
  return Math.imul(prev ^ Math.imul(h, 0x9e3779b1), 0x85ebca6b) ^ SEED_BIGRAM;
}

const lexiconCounts = new Int32Array(3);
const identifierCounts = new Int32Array(IDENTIFIER_KINDS.length);

// Reused between calls: the normalised characters of the text.
let norm = new Uint16Array(HEAD_CHARS + TAIL_CHARS + 16);

function bucketOf(ratio: number, edges: readonly number[]): number {
  let i = 0;
  while (i < edges.length && ratio >= (edges[i] as number)) i++;
  return i;
}

function tag(out: FeatureBuffer, name: string): void {
  out.push(hashString(SEED_TAG, name) & MASK, 1);
}

/**
 * The buckets of the identifier tags, `id:<kind>:<1|2>` at kind * 3 + count and `id:any:<1..3>`
 * after them, hashed once rather than built and hashed per request.
 */
const ID_TAGS = Int32Array.from({ length: IDENTIFIER_KINDS.length * 3 + 4 }, (_, i) => {
  const kind = Math.floor(i / 3);
  return hashString(SEED_TAG, kind < IDENTIFIER_KINDS.length ? `id:${IDENTIFIER_KINDS[kind]}:${i % 3}` : `id:any:${i - IDENTIFIER_KINDS.length * 3}`) & MASK;
});

/** Appends the features of a (capped) text to `out` (which the caller resets). */
export function extractFeatures(raw: string, out: FeatureBuffer): void {
  extractTextFeatures(raw, out);
  extractLanguageFeatures(raw, out);
}

/**
 * Every feature but the language: words, characters, lexicon and shape. extractFeatures is this
 * then extractLanguageFeatures, so the language features are always the last ones in the buffer
 * (the classifier relies on it to add them on top of a partial score).
 */
export function extractTextFeatures(raw: string, out: FeatureBuffer): void {
  if (norm.length < raw.length + 2) norm = new Uint16Array(raw.length + 16);

  // One pass: normalise characters and gather the shape statistics.
  let n = 0;
  let nonSpace = 0;
  let symbols = 0;
  let digits = 0;
  let latin = 0;
  let letters = 0;
  let accented = 0;
  let lines = 1;
  let indented = 0;
  let atLineStart = true;
  let leading = 0;
  const scripts = { cyrillic: 0, arabic: 0, indic: 0, cjk: 0, hangul: 0, greek: 0, hebrew: 0, thai: 0 };
  norm[n++] = 32;
  for (let i = 0; i < raw.length; i++) {
    let c = raw.charCodeAt(i);
    if (c === 10) {
      lines++;
      atLineStart = true;
      leading = 0;
    } else if (atLineStart) {
      if (c === 32 || c === 9) {
        leading++;
        if (leading === 2 || c === 9) {
          indented++;
          atLineStart = false;
        }
      } else atLineStart = false;
    }
    if (c === 32 || c === 9 || c === 10 || c === 13) {
      if (norm[n - 1] !== 32) norm[n++] = 32;
      continue;
    }
    nonSpace++;
    if (c >= 48 && c <= 57) {
      digits++;
      c = 48;
    } else if (c >= 65 && c <= 90) {
      latin++;
      letters++;
      c += 32;
    } else if (c >= 97 && c <= 122) {
      latin++;
      letters++;
    } else if (c < 128) {
      if (SYMBOLS.has(c)) symbols++;
    } else {
      if (c === 0xa1 || c === 0xbf) accented++;
      else if (c >= 0xc0 && c <= 0x24f) {
        latin++;
        if (c !== 0xd7 && c !== 0xf7) accented++;
      }
      else if (c >= 0x370 && c <= 0x3ff) scripts.greek++;
      else if (c >= 0x400 && c <= 0x52f) scripts.cyrillic++;
      else if (c >= 0x590 && c <= 0x5ff) scripts.hebrew++;
      else if (c >= 0x600 && c <= 0x6ff) scripts.arabic++;
      else if (c >= 0x900 && c <= 0xdff) scripts.indic++;
      else if (c >= 0xe00 && c <= 0xe7f) scripts.thai++;
      else if (isIdeograph(c)) scripts.cjk++;
      else if (c >= 0xac00 && c <= 0xd7af) scripts.hangul++;
      if (isWordChar(c) || isIdeograph(c)) letters++;
      // Only Latin, Greek and Cyrillic letters below U+0530 have case.
      if (c < 0x530) {
        const lower = String.fromCharCode(c).toLowerCase();
        if (lower.length === 1) c = lower.charCodeAt(0);
      }
    }
    norm[n++] = c;
  }
  if (norm[n - 1] !== 32) norm[n++] = 32;

  // Word unigrams and bigrams.
  const wordsFrom = out.length;
  lexiconCounts.fill(0);
  let prev = 0;
  let i = 0;
  while (i < n) {
    const c = norm[i] as number;
    if (isIdeograph(c)) {
      const h = Math.imul((SEED_WORD ^ 0x811c9dc5) ^ c, 0x01000193);
      out.push(h & MASK, 1);
      if (prev !== 0) {
        const bigram = bigramHash(prev, h);
        out.push(bigram & MASK, 1);
        const kind = lexiconOf.get(bigram);
        if (kind !== undefined) lexiconCounts[kind] = (lexiconCounts[kind] as number) + 1;
      }
      prev = h;
      i++;
      continue;
    }
    if (!isWordChar(c)) {
      // Punctuation other than spaces separates phrases: no bigram across it.
      if (c !== 32) prev = 0;
      i++;
      continue;
    }
    let h = SEED_WORD ^ 0x811c9dc5;
    while (i < n && isWordChar(norm[i] as number)) h = Math.imul(h ^ (norm[i++] as number), 0x01000193);
    out.push(h & MASK, 1);
    const kind = lexiconOf.get(h);
    if (kind !== undefined) lexiconCounts[kind] = (lexiconCounts[kind] as number) + 1;
    if (prev !== 0) {
      const bigram = bigramHash(prev, h);
      out.push(bigram & MASK, 1);
      const phrase = phraseStart[prev & 1023] === 1 ? lexiconOf.get(bigram) : undefined;
      if (phrase !== undefined) lexiconCounts[phrase] = (lexiconCounts[phrase] as number) + 1;
    }
    prev = h;
  }
  const words = out.length - wordsFrom;
  if (words > 0) out.fill(wordsFrom, 1 / Math.sqrt(words));

  // Character trigrams.
  const charsFrom = out.length;
  for (let j = 0; j + 2 < n; j++) {
    let h = SEED_CHAR ^ 0x811c9dc5;
    h = Math.imul(h ^ (norm[j] as number), 0x01000193);
    h = Math.imul(h ^ (norm[j + 1] as number), 0x01000193);
    h = Math.imul(h ^ (norm[j + 2] as number), 0x01000193);
    out.push(h & MASK, 1);
  }
  const chars = out.length - charsFrom;
  if (chars > 0) out.fill(charsFrom, 1 / Math.sqrt(chars));

  for (let k = 0; k < LEXICON_KINDS.length; k++) {
    const count = lexiconCounts[k] as number;
    if (count > 0) tag(out, `lex:${LEXICON_KINDS[k]}:${Math.min(count, 3)}`);
  }

  // Identifier shapes, each kind and all together: what code of any language and tool has in common.
  identifierCounts.fill(0);
  countIdentifiers(raw, identifierCounts);
  let identifiers = 0;
  for (let k = 0; k < IDENTIFIER_KINDS.length; k++) {
    const count = identifierCounts[k] as number;
    identifiers += count;
    if (count > 0) out.push(ID_TAGS[k * 3 + Math.min(count, 2)] as number, 1);
  }
  if (identifiers > 0) out.push(ID_TAGS[IDENTIFIER_KINDS.length * 3 + Math.min(identifiers, 3)] as number, 1);

  // Shape.
  const total = Math.max(1, nonSpace);
  tag(out, `sym:${bucketOf(symbols / total, [0.01, 0.04, 0.08, 0.15])}`);
  tag(out, `dig:${bucketOf(digits / total, [0.01, 0.05, 0.15])}`);
  tag(out, `lines:${bucketOf(lines, [2, 5, 15])}`);
  tag(out, `indent:${bucketOf(indented / lines, [0.01, 0.3])}`);
  tag(out, `len:${bucketOf(raw.length, [20, 60, 200, 1000])}`);
  if (raw.includes('```')) tag(out, 'fence');
  // Accented Latin letters and ¿ ¡: on a greeting too short for the language detector ("Olá!",
  // "¿Qué tal?") the one sign of a language other than English the words may not give.
  if (accented > 0) tag(out, `accents:${Math.min(accented, 3)}`);
  const nonLatin = letters - latin;
  if (letters >= 2 && nonLatin / letters >= 0.5) out.notEnglish = true;
  if (letters < LANGUAGE_RULE_MIN_LETTERS) out.tooShortForLanguageRule = true;
  if (letters > 0 && nonLatin / letters >= 0.3) {
    let best = 'other';
    let most = 0;
    for (const [name, count] of Object.entries(scripts)) {
      if (count > most) {
        most = count;
        best = name;
      }
    }
    tag(out, `script:${best}`);
    tag(out, 'script:non-latin');
  }

}

type Eld = typeof import('eld/extrasmall').eld;
/**
 * `eld` is loaded on the first detection, not at start: its n-gram tables are some 28 MB of heap
 * (56 MB of resident memory in a process that loads it alone), and only requests for a pipeline or
 * svc-auto are classified, and of those only the ones the other features leave open run `eld`.
 * Synchronous, so classifying stays synchronous: `eld` is ESM only, so it is loaded with
 * require(esm) (Node 20.19 and later), by its file's path, as its exports list only `import`. On an
 * older Node, which cannot require ESM, it is imported when this module loads, as before.
 */
let eldLoaded: Eld | null = process.features.require_module ? null : (await import('eld/extrasmall')).eld;
function languageDetector(): Eld {
  eldLoaded ??= (createRequire(import.meta.url)(fileURLToPath(import.meta.resolve('eld/extrasmall'))) as typeof import('eld/extrasmall')).eld;
  return eldLoaded;
}

/** The language gap buckets' edges: how far the detected language is ahead of English. */
const GAP_EDGES = [0.05, 0.15, 0.3] as const;
/**
 * The gap bucket from which a reliable detection makes the text `multilingual` over the model's
 * `general` (0.15 ahead of English). English sentences with a word of French or Spanish origin come
 * out reliably a little ahead ("Give me a simple omelette recipe." French by 0.06), while text in
 * another language is mostly far ahead (516 of the data sets' 569 reliable detections of another
 * language in 16 letters or more); below it the model decides, with the detection among its
 * features, and on the data sets it needed the rule for none of those.
 */
const RULE_GAP_BUCKET = 2;

/**
 * The language features: the tags of what `eld` detects in the first LANG_CHARS characters, and
 * notEnglish when it reliably detects another language at least 0.15 ahead of English. The most
 * expensive feature by far (about half the classifier's time), so the classifier adds it only when
 * the other features leave the lane open (see LANGUAGE_OUTCOMES).
 */
export function extractLanguageFeatures(raw: string, out: FeatureBuffer): void {
  const detected = languageDetector().detect(raw.length > LANG_CHARS ? raw.slice(0, LANG_CHARS) : raw);
  if (detected.language === '') tag(out, 'lang:none');
  else {
    const english = detected.language === 'en';
    const reliable = detected.isReliable();
    tag(out, `lang:${english ? 'en' : 'other'}${reliable ? '' : ':unsure'}`);
    if (!english) {
      const scores = detected.getScores();
      const gap = (scores[detected.language] ?? 0) - (scores.en ?? 0);
      tag(out, `lang-gap:${bucketOf(gap, GAP_EDGES)}`);
      if (reliable && gap >= (GAP_EDGES[RULE_GAP_BUCKET - 1] as number)) out.notEnglish = true;
    }
  }
}

/** One result extractLanguageFeatures can give: the buckets of the tags it adds, in order, and whether it sets notEnglish. */
export interface LanguageOutcome {
  readonly buckets: readonly number[];
  readonly notEnglish: boolean;
}

/**
 * Every result extractLanguageFeatures can give, whatever `eld` detects: nothing; English, reliable
 * or not; another language, reliable or not, in each gap bucket (notEnglish when reliable and in a
 * bucket from RULE_GAP_BUCKET up). The classifier scores a text under each of them without running `eld`, and
 * runs it only when they disagree on the lane.
 */
export const LANGUAGE_OUTCOMES: readonly LanguageOutcome[] = (() => {
  const bucket = (name: string) => hashString(SEED_TAG, name) & MASK;
  const out: LanguageOutcome[] = [
    { buckets: [bucket('lang:none')], notEnglish: false },
    { buckets: [bucket('lang:en')], notEnglish: false },
    { buckets: [bucket('lang:en:unsure')], notEnglish: false },
  ];
  for (const reliable of [true, false]) {
    for (let gap = 0; gap <= GAP_EDGES.length; gap++) {
      out.push({ buckets: [bucket(`lang:other${reliable ? '' : ':unsure'}`), bucket(`lang-gap:${gap}`)], notEnglish: reliable && gap >= RULE_GAP_BUCKET });
    }
  }
  return out;
})();

/**
 * What the text classifier reads of a request: the latest user message (its text and text
 * documents) and the one before, or, in
 * a conversation's first turn, its system text (system prompt, responses `instructions`, developer
 * messages) in that place. A short first message ("customers without orders in 2024") then takes
 * the lane its system prompt sets ("You write SQL"), the way a follow-up takes its conversation's;
 * a message sure of its own lane keeps it.
 */
export function textLaneInput(request: CanonicalChatRequest): LaneText | undefined {
  const users: Extract<CanonicalMessage, { role: 'user' }>[] = [];
  for (let i = request.messages.length - 1; i >= 0 && users.length < 2; i--) {
    const m = request.messages[i] as CanonicalMessage;
    if (m.role === 'user') users.push(m);
  }
  const [latest, before] = users;
  if (!latest) return undefined;
  // A text document (a file pasted as one) is read like text: "What does this do?" says nothing
  // of its lane without the code it asks about.
  const textOf = (m: Extract<CanonicalMessage, { role: 'user' }>) =>
    capText(m.content.flatMap((p) => (p.type === 'text' ? [p.text] : p.type === 'document' ? [documentText(p) ?? ''] : [])));
  const text = textOf(latest);
  if (text.trim() === '') return undefined;
  return { text, previous: before ? textOf(before) : systemText(request) };
}

function systemText(request: CanonicalChatRequest): string {
  const parts = request.messages.flatMap((m) => (m.role === 'system' && m.content.trim() !== '' ? [m.content] : []));
  return parts.length === 0 ? '' : capText(parts);
}
