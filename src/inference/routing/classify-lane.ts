import { needsVision } from '../canonical/documents.ts';
import type { CanonicalChatRequest } from '../canonical/chat.ts';
import { textLaneInput } from './lanes/features.ts';
import { TextLaneModel } from './lanes/text-lane-model.ts';

/** The pipeline lanes, in the order their rules are tried (first match wins). */
export const LANES = ['vision', 'agent', 'code', 'math', 'multilingual', 'general'] as const;
export type Lane = (typeof LANES)[number];

/**
 * The trained text model shipped in lanes/model.json, unpacked on the first classification (1 MB of
 * weights), not at start: only requests for a pipeline or svc-auto are classified.
 */
let textModel: TextLaneModel | null = null;

/**
 * The lane of a chat request, whatever protocol it arrived in. Rules 1-2 are structural (an image
 * anywhere; tools declared or tool calls/results in the history); rules 3-5 (code, math,
 * multilingual) read the latest user message (text and text documents) with the trained text
 * classifier, which falls back on the previous user message, or in a first turn the system text,
 * when unsure; everything else is `general`.
 */
export function classifyLane(request: CanonicalChatRequest): Lane {
  const hasImage = request.messages.some((m) => m.role === 'user' && m.content.some(needsVision));
  if (hasImage) return 'vision';
  const agentic =
    request.tools.length > 0 ||
    request.messages.some((m) => m.role === 'tool' || (m.role === 'assistant' && m.toolCalls.length > 0));
  if (agentic) return 'agent';
  const input = textLaneInput(request);
  return input ? (textModel ??= TextLaneModel.load()).classify(input) : 'general';
}
