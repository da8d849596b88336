import type { DocumentPart, DocumentSource } from '../canonical/chat.ts';
import { at, invalid, type Fields } from './read-fields.ts';

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;
/** "%PDF-" in base64: every PDF starts with it, and both upstream kinds refuse anything else as a PDF. */
const PDF_MAGIC = 'JVBERi0';
const HTTP_URL = /^https?:\/\/\S+$/;
const DATA_URI = /^data:([a-zA-Z0-9.+-]+\/[a-zA-Z0-9.+-]+)(?:;[^,;]*)*;base64,/i;

/** Base64 data of a PDF, whitespace removed; a 400 naming `path` when it is not base64 or not a PDF. */
export function readPdfBase64(given: string, path: string): string {
  const data = given.replace(/\s+/g, '');
  if (data === '') invalid(path, 'must not be empty');
  if (!BASE64.test(data) || data.length % 4 === 1) invalid(path, 'must be base64');
  if (!data.startsWith(PDF_MAGIC)) invalid(path, 'must be a PDF (base64 of a file starting with %PDF-)');
  return data;
}

/** An http(s) URL the upstream fetches (the service never does); a 400 naming `path` otherwise. */
export function readDocumentUrl(url: string, path: string): DocumentSource {
  if (!HTTP_URL.test(url)) invalid(path, 'must be an http(s) URL');
  return { type: 'url', url };
}

/**
 * OpenAI's `file_data`: a data URI of a PDF, or of plain text (which becomes a text document).
 * Chat and responses take other file types at OpenAI, but no other upstream kind does: refused
 * with the type named.
 */
export function documentFromDataUri(uri: string, path: string): DocumentSource {
  const head = DATA_URI.exec(uri);
  if (!head) invalid(path, 'must be a base64 data URI (data:application/pdf;base64,...)');
  const mediaType = head[1]!.toLowerCase();
  const rest = uri.slice(head[0].length);
  if (mediaType === 'application/pdf') return { type: 'pdf', data: readPdfBase64(rest, path) };
  if (mediaType === 'text/plain') {
    const data = rest.replace(/\s+/g, '');
    if (!BASE64.test(data) || data.length % 4 === 1) invalid(path, 'must be base64');
    return { type: 'text', text: Buffer.from(data, 'base64').toString('utf8') };
  }
  return invalid(path, `must be a PDF (application/pdf) or plain text (text/plain), not ${head[1]}`);
}

/** The OpenAI file fields (`file_data` or `file_url`, `filename`) of a part as a document; `file_id` is a 400. */
export function readOpenAIFile(f: Fields, path: string, allowUrl: boolean): DocumentPart {
  if (f.file_id !== undefined && f.file_id !== null) invalid(at(path, 'file_id'), 'file ids are not supported (this service has no files API); send file_data');
  const filename = f.filename;
  if (filename !== undefined && filename !== null && typeof filename !== 'string') invalid(at(path, 'filename'), 'must be a string');
  const title = typeof filename === 'string' && filename !== '' ? { title: filename } : {};
  const data = f.file_data;
  const url = allowUrl ? f.file_url : undefined;
  if (data !== undefined && data !== null) {
    if (typeof data !== 'string') invalid(at(path, 'file_data'), 'must be a string');
    return { type: 'document', source: documentFromDataUri(data, at(path, 'file_data')), ...title };
  }
  if (url !== undefined && url !== null) {
    if (typeof url !== 'string') invalid(at(path, 'file_url'), 'must be a string');
    return { type: 'document', source: readDocumentUrl(url, at(path, 'file_url')), ...title };
  }
  return invalid(at(path, 'file_data'), allowUrl ? 'is required (or file_url)' : 'is required');
}
