import { readFileSync } from 'node:fs';
import type { CanonicalChatRequest, CanonicalMessage } from '../../canonical/chat.ts';
import type { Lane } from '../classify-lane.ts';

/**
 * The labelled lane data set (data/lanes.jsonl), read by the training script, the accuracy test and
 * the benchmark; the gateway itself only loads the trained model.
 */

export interface RecordMessage {
  readonly role: 'user' | 'assistant' | 'tool';
  readonly content: string;
  /** On an assistant message: the name of a tool it called (agent examples). */
  readonly toolCall?: string;
}

export interface LaneRecord {
  readonly id: string;
  readonly lane: Lane;
  /** Language of the latest user message (`multi` for multi-turn, `en+xx` for English asking about xx text). */
  readonly lang: string;
  readonly source: 'template' | 'hand';
  readonly split: 'train' | 'test';
  readonly messages: readonly RecordMessage[];
  /** The request carries an image in its first user message. */
  readonly image?: boolean;
  /** The request declares a tool. */
  readonly tools?: boolean;
  readonly note?: string;
  /**
   * The latest message says too little to have a lane of its own ("why?", "make it shorter"):
   * its label is the conversation's lane, and training teaches the model to be unsure of it.
   */
  readonly vague?: boolean;
}

export const DATA_FILE = new URL('./data/lanes.jsonl', import.meta.url);
/** Requests written after the model was frozen, only ever evaluated. */
export const FRESH_FILE = new URL('./data/fresh.jsonl', import.meta.url);
/**
 * Operations requests (kubectl, terraform, nginx, CI workflows...) that must be `code`, and
 * everyday requests that share their words that must not: `ops-dev-*` were used to design the
 * identifier shapes and the lexicon's operations words, `ops-fresh-*` written after those were
 * frozen. Only ever evaluated.
 */
export const OPS_FILE = new URL('./data/ops.jsonl', import.meta.url);

/** The fixed held-out split: a quarter of the records, chosen by a hash of the id (FNV-1a). */
export function splitOf(id: string): 'train' | 'test' {
  let h = 0x811c9dc5;
  for (let i = 0; i < id.length; i++) h = Math.imul(h ^ id.charCodeAt(i), 0x01000193);
  return (h >>> 0) % 4 === 0 ? 'test' : 'train';
}

export function loadDataSet(file: URL | string = DATA_FILE): LaneRecord[] {
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as LaneRecord);
}

/** The canonical request a record stands for, as a client protocol would have parsed it. */
export function toCanonical(record: LaneRecord): CanonicalChatRequest {
  let imagePlaced = false;
  const messages: CanonicalMessage[] = record.messages.map((m, i): CanonicalMessage => {
    if (m.role === 'assistant') {
      const toolCalls = m.toolCall ? [{ id: `call_${i}`, name: m.toolCall, arguments: '{}' }] : [];
      return { role: 'assistant', content: m.content, toolCalls };
    }
    if (m.role === 'tool') return { role: 'tool', toolCallId: `call_${i - 1}`, content: m.content };
    const content: CanonicalMessage & { role: 'user' } = {
      role: 'user',
      content: [{ type: 'text', text: m.content }],
    };
    if (record.image && !imagePlaced) {
      imagePlaced = true;
      return { role: 'user', content: [...content.content, { type: 'image', url: 'https://example.com/photo.jpg' }] };
    }
    return content;
  });
  const tools = record.tools ? [{ name: 'lookup', description: 'Looks something up', parameters: { type: 'object' } }] : [];
  return { messages, tools, stop: [], stream: false };
}
