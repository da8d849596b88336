import type { Catalog } from '../../config/catalog.ts';
import { badRequest } from '../../shared/errors.ts';

/**
 * The model an image generation is served by: the one it names, or, when it names none, the
 * catalog's image model when there is exactly one (svc-image as shipped). OpenAI's images API
 * defaults `model` and its SDK types it as optional, so a client written against it sends a bare
 * `{prompt}`; with no image model, or several to choose from, the field is required
 * (docs/api-decisions.md, "Inference: twelfth audit").
 */
export function imageModelId(catalog: Catalog, named: string | undefined): string {
  if (named !== undefined) return named;
  const images = [...catalog.models.values()].filter((m) => m.type === 'image');
  if (images.length === 1) return images[0]!.id;
  throw badRequest('model: is required');
}
