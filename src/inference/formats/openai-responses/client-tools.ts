import type { JsonObject, ToolDefinition } from '../../canonical/chat.ts';
import type { ParsedResponsesRequest } from './parse-responses-request.ts';
import type { CustomToolSpec } from './response-items.ts';

/**
 * The tools the client answers itself (function and `custom` tools) as upstreams get them, and
 * `tool_choice: {type: "allowed_tools"}`. Neither upstream kind has free-form tools, so a custom
 * tool goes as a function tool of one string parameter, `input`, and the model's call comes back as
 * the string (docs/responses.md, "Custom tools"). A grammar cannot be enforced by an upstream
 * without grammar-constrained sampling: it is given to the model as part of the description.
 */

/** The one parameter of a custom tool as a function tool. */
export const CUSTOM_INPUT_SCHEMA: JsonObject = {
  type: 'object',
  properties: { input: { type: 'string', description: 'The raw input for the tool, as free text (not JSON-encoded).' } },
  required: ['input'],
  additionalProperties: false,
};

/** A custom tool as the function tool the upstream is given. */
export function customToolDefinition(spec: CustomToolSpec): ToolDefinition {
  let description = spec.description ?? '';
  if (spec.format.type === 'grammar') {
    // Not enforced: neither upstream kind samples under a grammar. The model is told instead.
    const rule = `The input must match this ${spec.format.syntax === 'lark' ? 'Lark grammar' : 'regular expression'}:\n${spec.format.definition}`;
    description = description === '' ? rule : `${description}\n\n${rule}`;
  }
  return { name: spec.name, parameters: CUSTOM_INPUT_SCHEMA, ...(description === '' ? {} : { description }) };
}

/** A custom tool call's input as the arguments of the upstream's function call. */
export function customCallArguments(input: string): string {
  return JSON.stringify({ input });
}

/**
 * The input of a custom tool call from the upstream's arguments: `input` of `{"input": "..."}`. A
 * model that answered otherwise still gets its text to the client: a non-string `input` as JSON, the
 * one string of an object with one string field, anything that is not such JSON as it came.
 */
export function customInputOf(args: string): string {
  let v: unknown;
  try {
    v = JSON.parse(args);
  } catch {
    return args;
  }
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return args;
  const o = v as Record<string, unknown>;
  if ('input' in o) return typeof o.input === 'string' ? o.input : JSON.stringify(o.input);
  const strings = Object.values(o).filter((x): x is string => typeof x === 'string');
  return strings.length === 1 && Object.keys(o).length === 1 ? strings[0]! : args;
}

const OPENING = /^\s*\{\s*"input"\s*:\s*"/;
const ESCAPES: Readonly<Record<string, string>> = { '"': '"', '\\': '\\', '/': '/', b: '\b', f: '\f', n: '\n', r: '\r', t: '\t' };

/**
 * The text of `input` as the upstream streams the arguments `{"input": "..."}`, decoded as it comes,
 * so `response.custom_tool_call_input.delta` carries text rather than JSON. Arguments of another
 * shape give nothing here; the call's end sends what customInputOf makes of them.
 */
export class CustomInputStream {
  private state: 'seek' | 'string' | 'after' = 'seek';
  private head = '';
  private escape: string | null = null;

  /** The decoded text this fragment of the arguments adds (often ''). */
  push(fragment: string): string {
    if (this.state === 'after') return '';
    let rest = fragment;
    if (this.state === 'seek') {
      this.head += fragment;
      const m = OPENING.exec(this.head);
      if (!m) {
        // Not the expected opening within a short prefix: leave it to customInputOf.
        if (this.head.length > 64) this.state = 'after';
        return '';
      }
      this.state = 'string';
      rest = this.head.slice(m[0].length);
      this.head = '';
    }
    let out = '';
    for (const ch of rest) {
      if (this.state !== 'string') break;
      if (this.escape !== null) {
        if (this.escape === '' && ch !== 'u') {
          out += ESCAPES[ch] ?? ch;
          this.escape = null;
        } else {
          this.escape += ch;
          // A \u escape: the letter u, then four hex digits.
          if (this.escape.length === 5) {
            out += String.fromCharCode(parseInt(this.escape.slice(1), 16));
            this.escape = null;
          }
        }
      } else if (ch === '\\') this.escape = '';
      else if (ch === '"') this.state = 'after';
      else out += ch;
    }
    return out;
  }
}

/** Every function and custom tool of the request as upstreams get them, in the order of `tools`. */
export function clientToolDefinitions(parsed: Pick<ParsedResponsesRequest, 'toolsEcho' | 'functionTools' | 'customTools'>): ToolDefinition[] {
  const out: ToolDefinition[] = [];
  for (const t of parsed.toolsEcho) {
    if (t.type === 'function') {
      const f = parsed.functionTools.find((d) => d.name === t.name);
      if (f) out.push(f);
    } else if (t.type === 'custom') {
      const c = parsed.customTools.find((d) => d.name === t.name);
      if (c) out.push(customToolDefinition(c));
    }
  }
  return out;
}

/**
 * The function and custom tools sent upstream: all of them, or under `allowed_tools` only those
 * it lists. OpenAI keeps every tool declared and restricts the calls; neither upstream kind has
 * that (Anthropic has no such choice, and OpenAI-compatible servers other than OpenAI's do not take
 * it), so the others are left out of the request, which is the one restriction every upstream
 * keeps (docs/api-decisions.md, "Responses: allowed tools and custom tools").
 */
export function upstreamClientTools(parsed: Pick<ParsedResponsesRequest, 'toolsEcho' | 'functionTools' | 'customTools' | 'toolChoice'>): ToolDefinition[] {
  const all = clientToolDefinitions(parsed);
  const c = parsed.toolChoice;
  if (c.type !== 'allowed_tools') return all;
  return all.filter((d) => c.tools.some((a) => a.kind !== 'mcp' && a.name === d.name));
}

/** Whether `allowed_tools` (when it is the choice) lets the model call this MCP server's tool. */
export function allowsMcpTool(choice: ParsedResponsesRequest['toolChoice'], serverLabel: string, tool: string): boolean {
  if (choice.type !== 'allowed_tools') return true;
  return choice.tools.some((a) => a.kind === 'mcp' && a.serverLabel === serverLabel && (a.name === null || a.name === tool));
}
