/**
 * Anthropic requires `max_tokens`. When the client gave none, ask for as much as the upstream
 * model allows, bounded by the brand model's own maximum. Claude 4 models take 32K or more;
 * the Claude 3 family less. Anything unrecognised gets the 32K every current model accepts.
 */
export function defaultAnthropicMaxTokens(upstreamModel: string, brandMaxOutput: number | null): number {
  let upstreamMax = 32_000;
  if (/claude-3-(?:haiku|opus|sonnet)/.test(upstreamModel)) upstreamMax = 4_096;
  else if (/claude-3-5-/.test(upstreamModel)) upstreamMax = 8_192;
  return Math.min(upstreamMax, brandMaxOutput ?? upstreamMax);
}
