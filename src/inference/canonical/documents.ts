import type { DocumentPart, UserContentPart } from './chat.ts';

/**
 * Input tokens one PDF page is held for: Anthropic reads each page as text and as an image and
 * documents 1,500 to 3,000 tokens a page; OpenAI the same way.
 */
export const PDF_PAGE_TOKENS = 3000;
/** The most pages an upstream reads from one PDF (Anthropic's limit with a large context). */
export const PDF_MAX_PAGES = 600;
/**
 * A PDF given by URL: its size is unknown until the upstream fetches it, so it is held for as a
 * 32-page document (more would refuse it outright on the smaller contexts).
 */
export const URL_DOCUMENT_TOKENS = 32 * PDF_PAGE_TOKENS;
/**
 * Bytes per page assumed when a PDF's page objects cannot be counted (compressed object streams):
 * a scanned page's size, so that a large PDF is not refused by the context check on a guess.
 */
const BYTES_PER_PAGE = 200 * 1024;
const PAGE_OBJECT = /\/Type\s*\/Page(?![a-zA-Z])/g;

/** The text of a text document (its chunks joined by blank lines); undefined for a PDF or URL. */
export function documentText(p: DocumentPart): string | undefined {
  if (p.source.type === 'text') return p.source.text;
  if (p.source.type === 'content') return p.source.texts.join('\n\n');
  return undefined;
}

/** Pages of a base64 PDF: its page objects counted, or its size when it shows none; 1 to PDF_MAX_PAGES. */
export function pdfPages(base64: string): number {
  const known = pagesOf.get(base64);
  if (known !== undefined) return known;
  const bytes = Buffer.from(base64, 'base64').toString('latin1');
  const counted = bytes.match(PAGE_OBJECT)?.length ?? 0;
  const pages = counted > 0 ? counted : Math.ceil(bytes.length / BYTES_PER_PAGE);
  const n = Math.min(PDF_MAX_PAGES, Math.max(1, pages));
  if (pagesOf.size >= 8) pagesOf.delete(pagesOf.keys().next().value!);
  pagesOf.set(base64, n);
  return n;
}

/**
 * The last PDFs counted: a request's estimate, context check and count run over the same data, and
 * decoding a large PDF is the costly part. Keyed by the string, which V8 compares by identity first.
 */
const pagesOf = new Map<string, number>();

/**
 * The fixed token cost of a PDF or URL document, bounded by its pages (a base64 body's length is
 * not its tokens); 0 for a text document, which is counted as text.
 */
export function documentFixedTokens(p: DocumentPart): number {
  if (p.source.type === 'pdf') return pdfPages(p.source.data) * PDF_PAGE_TOKENS;
  if (p.source.type === 'url') return URL_DOCUMENT_TOKENS;
  return 0;
}

/** Whether a part needs a model that sees: an image, or a PDF (read page by page as images). */
export function needsVision(p: UserContentPart): boolean {
  return p.type === 'image' || (p.type === 'document' && (p.source.type === 'pdf' || p.source.type === 'url'));
}
