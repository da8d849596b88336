/** A 1x1 PNG, base64: the image the gateway tests send. */
export const PNG_BASE64 = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==';

/**
 * A messages-route user turn in the service's message object with OpenAI's `image_url` parts
 * (one by url with its detail, one as a data URI), which the Anthropic SDK's types do not know.
 */
export const IMAGE_URL_PARTS_TURN = {
  role: 'user' as const,
  content: [
    { type: 'image_url', image_url: { url: 'https://example.com/dog.jpg', detail: 'low' } },
    { type: 'image_url', image_url: { url: `data:image/png;base64,${PNG_BASE64}` } },
    { type: 'text', text: 'Compare.' },
  ] as never,
};
