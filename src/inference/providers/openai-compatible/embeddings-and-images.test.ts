import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { fixtureJson } from '../../../../test/fixtures/load-fixture.ts';
import { ProviderFailure } from '../provider-failure.ts';
import { buildOpenAIEmbeddingsBody } from './build-openai-embeddings-body.ts';
import { buildOpenAIImagesBody } from './build-openai-images-body.ts';
import { detectImageMediaType } from './detect-image-media-type.ts';
import { parseOpenAIEmbeddingsResponse } from './parse-openai-embeddings-response.ts';
import { parseOpenAIImagesResponse } from './parse-openai-images-response.ts';

describe('OpenAI-compatible embeddings', () => {
  it('asks for floats with optional dimensions', () => {
    assert.deepEqual(buildOpenAIEmbeddingsBody({ input: ['a', 'b'] }, 'up-embed'), { model: 'up-embed', input: ['a', 'b'] });
    assert.deepEqual(buildOpenAIEmbeddingsBody({ input: ['a'], dimensions: 256, user: 'u' }, 'e'), { model: 'e', input: ['a'], dimensions: 256, user: 'u' });
  });

  it('reads float and base64 answers alike, in input order', () => {
    const float = parseOpenAIEmbeddingsResponse(fixtureJson('openai-embeddings-float.json'), 2);
    const b64 = parseOpenAIEmbeddingsResponse(fixtureJson('openai-embeddings-base64.json'), 2);
    assert.deepEqual(float.usage, { inputTokens: 9, cachedInputTokens: 0, outputTokens: 0 });
    assert.equal(float.embeddings[1]![3], 0.5);
    assert.deepEqual(b64.embeddings.map((v) => v.map(Math.fround)), float.embeddings.map((v) => v.map(Math.fround)));
    const reordered = parseOpenAIEmbeddingsResponse({ data: [{ index: 1, embedding: [2] }, { index: 0, embedding: [1] }] }, 2);
    assert.deepEqual(reordered, { embeddings: [[1], [2]], usage: null });
  });

  it('fails when the count does not match the input', () => {
    assert.throws(() => parseOpenAIEmbeddingsResponse({ data: [{ index: 0, embedding: [1] }] }, 2), (e) => e instanceof ProviderFailure && e.status === 502);
    assert.throws(() => parseOpenAIEmbeddingsResponse({ data: [{ index: 0, embedding: [1] }, { index: 0, embedding: [1] }] }, 2), ProviderFailure);
  });
});

describe('OpenAI-compatible images', () => {
  it('sends only the fields given, never response_format', () => {
    assert.deepEqual(buildOpenAIImagesBody({ prompt: 'a fox', n: 1 }, 'up-image'), { model: 'up-image', prompt: 'a fox', n: 1 });
    assert.deepEqual(buildOpenAIImagesBody({ prompt: 'p', n: 2, size: '1024x1024', quality: 'high', outputFormat: 'webp' }, 'i'), {
      model: 'i',
      prompt: 'p',
      n: 2,
      size: '1024x1024',
      quality: 'high',
      output_format: 'webp',
    });
  });

  it('reads base64 images and URL images with revised prompts', () => {
    const b64 = parseOpenAIImagesResponse(fixtureJson('openai-images-b64.json'));
    assert.equal(b64.length, 1);
    assert.equal(detectImageMediaType(Buffer.from(b64[0]!.base64!, 'base64')), 'image/png');
    const url = parseOpenAIImagesResponse(fixtureJson('openai-images-url.json'));
    assert.match(url[0]!.url!, /^https:/);
    assert.equal(url[0]!.revisedPrompt, 'A watercolor fox in a snowy forest');
    assert.throws(() => parseOpenAIImagesResponse({ data: [] }), ProviderFailure);
  });

  it('recognises jpeg, gif and webp signatures', () => {
    assert.equal(detectImageMediaType(new Uint8Array([0xff, 0xd8, 0xff, 0xe0])), 'image/jpeg');
    assert.equal(detectImageMediaType(Buffer.from('GIF89a')), 'image/gif');
    assert.equal(detectImageMediaType(Buffer.from('RIFF\0\0\0\0WEBPVP8 ')), 'image/webp');
  });
});
