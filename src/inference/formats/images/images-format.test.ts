import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { HttpError } from '../../../shared/errors.ts';
import { formatImageResponse } from './format-image-response.ts';
import { parseImageRequest } from './parse-image-request.ts';

function error400(body: unknown): string {
  try {
    parseImageRequest(body);
  } catch (e) {
    assert.ok(e instanceof HttpError && e.status === 400);
    return e.message;
  }
  assert.fail('expected a 400');
}

describe('images format', () => {
  it('reads the request with defaults n=1 and url', () => {
    assert.deepEqual(parseImageRequest({ model: 'svc-image', prompt: 'a fox' }), { model: 'svc-image', responseFormat: 'url', request: { prompt: 'a fox', n: 1 } });
    assert.deepEqual(
      parseImageRequest({ model: 'm', prompt: 'p', n: 2, size: '1024x1536', quality: 'high', style: 'vivid', background: 'transparent', output_format: 'webp', response_format: 'b64_json', user: 'u' }),
      {
        model: 'm',
        responseFormat: 'b64_json',
        request: { prompt: 'p', n: 2, size: '1024x1536', quality: 'high', style: 'vivid', background: 'transparent', outputFormat: 'webp', user: 'u' },
      },
    );
  });

  it('leaves a missing model to the route (the catalog\'s image model serves)', () => {
    assert.equal(parseImageRequest({ prompt: 'p' }).model, undefined);
    assert.equal(parseImageRequest({ model: null, prompt: 'p' }).model, undefined);
  });

  it('names the invalid field', () => {
    assert.equal(error400({ model: 'm' }), 'prompt: is required');
    assert.equal(error400({ model: '', prompt: 'p' }), 'model: must not be empty');
    assert.equal(error400({ model: 'm', prompt: 'p', n: 11 }), 'n: must be <= 10');
    assert.equal(error400({ model: 'm', prompt: 'p', size: 'big' }), 'size: must be auto or WIDTHxHEIGHT, e.g. 1024x1024');
    assert.equal(error400({ model: 'm', prompt: 'p', response_format: 'file' }), 'response_format: must be one of url, b64_json');
  });

  it('answers base64 or a data URI, never an upstream URL', () => {
    const response = { images: [{ base64: 'iVBORw0KGgo=', mediaType: 'image/png', revisedPrompt: 'a red fox' }] };
    assert.deepEqual(formatImageResponse(response, { created: 1, responseFormat: 'url' }), {
      created: 1,
      data: [{ url: 'data:image/png;base64,iVBORw0KGgo=', revised_prompt: 'a red fox' }],
    });
    assert.deepEqual(formatImageResponse(response, { created: 1, responseFormat: 'b64_json' }).data[0], { b64_json: 'iVBORw0KGgo=', revised_prompt: 'a red fox' });
  });
});
