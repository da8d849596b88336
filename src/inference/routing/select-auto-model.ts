import type { AutoRouter, AutoRule, Catalog, Deployment, ModelConfig } from '../../config/catalog.ts';
import { HttpError, badRequest } from '../../shared/errors.ts';
import { DEFAULT_OUTPUT_RESERVATION_TOKENS } from '../billing/estimate.ts';
import type { Lane } from './classify-lane.ts';
import { describeNeeds, fitsLimits, hasCapabilities, type RequestNeeds } from './request-needs.ts';

function matches(rule: AutoRule, lane: Lane, needs: RequestNeeds): boolean {
  if (rule.lanes !== null && !rule.lanes.includes(lane)) return false;
  if (rule.images !== null && rule.images !== needs.images) return false;
  if (rule.tools !== null && rule.tools !== needs.tools) return false;
  if (rule.structuredOutput !== null && rule.structuredOutput !== needs.structuredOutput) return false;
  if (rule.reasoning !== null && rule.reasoning !== needs.reasoning) return false;
  // Counted as the upstream bills it, the byte-based estimate taking a 150K-token prompt for 270K;
  // an estimate under the minimum (it is deliberately high) spares the count.
  if (rule.minInputTokens !== null && (needs.inputTokens < rule.minInputTokens || !needs.exceedsContext(rule.minInputTokens - 1))) return false;
  if (rule.minOutputTokens !== null && (needs.outputTokens ?? 0) < rule.minOutputTokens) return false;
  return true;
}

/** What the request would cost on a model: its input estimate and its output cap at the model's prices. */
function expectedCost(model: ModelConfig, needs: RequestNeeds): bigint {
  const output = needs.outputTokens ?? DEFAULT_OUTPUT_RESERVATION_TOKENS;
  return BigInt(needs.inputTokens) * model.pricing.input + BigInt(output) * model.pricing.output;
}

function cheapest(models: readonly ModelConfig[], needs: RequestNeeds): ModelConfig | null {
  let best: ModelConfig | null = null;
  let bestCost = 0n;
  for (const m of models) {
    const cost = expectedCost(m, needs);
    if (best === null || cost < bestCost) [best, bestCost] = [m, cost];
  }
  return best;
}

/**
 * svc-auto's choice for one request. The candidates that can serve it (capabilities, context for
 * the input plus the requested output, output limit, configured upstream) are narrowed by
 * the first rule that matches the request's lane and needs; when none of the rule's models can
 * serve, every capable candidate stays in (a rule says what serves a request well, never that it
 * goes unserved). Of those, the one where the request is expected to cost least (input estimate
 * and output cap at its prices); catalog order breaks ties. 400 when no candidate could ever serve
 * it, 503 when the ones that could are not available.
 *
 * `takesCalls` says whether a deployment's breaker lets calls through now. A candidate whose every
 * deployment is refused is passed over: svc-auto never falls back to another model (its hold is
 * sized at the chosen one's prices), so choosing it would answer 503 to every request for as long
 * as the cheapest model is down (docs/api-decisions.md, "Routing and resilience audit").
 */
export function selectAutoModel(catalog: Catalog, router: AutoRouter, lane: Lane, needs: RequestNeeds, takesCalls: (d: Deployment) => boolean = () => true): ModelConfig {
  const all = router.candidates.map((id) => catalog.models.get(id)!);
  const capable = all.filter((m) => hasCapabilities(m, needs) && fitsLimits(m, needs));
  if (capable.length === 0) throw badRequest(`model svc-auto: no model it chooses from takes this request (${describeNeeds(needs)})`);
  const serving = capable.filter((m) => m.deployments.some((d) => d.provider.configured && takesCalls(d)));
  if (serving.length === 0) throw new HttpError(503, 'model svc-auto is not available');
  const rule = router.rules.find((r) => matches(r, lane, needs));
  const preferred = rule ? serving.filter((m) => rule.use.includes(m.id)) : [];
  return cheapest(preferred.length > 0 ? preferred : serving, needs)!;
}
