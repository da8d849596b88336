import { setImmediate as nextTurn } from 'node:timers/promises';
import type { Catalog } from '../../config/catalog.ts';
import { createId } from '../canonical/create-id.ts';
import { demoChat, demoChatEvents, demoEmbeddings, demoImages, demoRerank } from '../providers/demo/demo-provider.ts';
import type { ProviderStreamEvent } from '../providers/provider-stream.ts';
import type { Upstreams } from './create-upstreams.ts';
import type { UpstreamTarget } from './upstream-target.ts';
import { startChatStream } from './start-chat-stream.ts';
import { throwIfAborted } from './upstream-transport.ts';

const isDemo = (target: UpstreamTarget): boolean => target.deployment.provider.type === 'demo';

/**
 * `real`, wrapped by withDemoProvider when the catalog has demo deployments: the wrapper is one
 * more async hop per call, which a catalog of real upstreams need not pay.
 */
export function serveDemoToo(catalog: Catalog, real: Upstreams): Upstreams {
  const demo = [...catalog.models.values()].some((m) => m.deployments.some((d) => d.provider.type === 'demo'));
  return demo ? withDemoProvider(real) : real;
}

/**
 * Serves deployments of the built-in demo provider in process (no HTTP) and passes every other
 * call on to `real`. Stream chunks are yielded one event-loop turn apart so they leave as separate
 * writes, as a real upstream's would. Calls this wrapper does not know pass on to `real`.
 */
export function withDemoProvider(real: Upstreams, newToolCallId: () => string = () => createId('call_')): Upstreams {
  return {
    ...real,
    async chat(target, request, signal) {
      if (!isDemo(target)) return real.chat(target, request, signal);
      throwIfAborted(signal);
      const result = demoChat(request, target.model.id, newToolCallId);
      return { ...result, usage: result.usage!, usageEstimated: false };
    },

    async chatStream(target, request, signal) {
      if (!isDemo(target)) return real.chatStream(target, request, signal);
      throwIfAborted(signal);
      const events = demoChatEvents(request, target.model.id, newToolCallId);
      async function* paced(): AsyncGenerator<ProviderStreamEvent> {
        for (const e of events) {
          await nextTurn();
          throwIfAborted(signal);
          yield e;
        }
      }
      return startChatStream(paced(), { estimateInput: () => 0, mapError: (e) => e });
    },

    async embeddings(target, request, signal) {
      if (!isDemo(target)) return real.embeddings(target, request, signal);
      throwIfAborted(signal);
      return { ...demoEmbeddings(request), usageEstimated: false };
    },

    async rerank(target, request, signal) {
      if (!isDemo(target)) return real.rerank(target, request, signal);
      throwIfAborted(signal);
      return { ...demoRerank(request), usageEstimated: false };
    },

    async images(target, request, signal) {
      if (!isDemo(target)) return real.images(target, request, signal);
      throwIfAborted(signal);
      return { images: demoImages(request) };
    },
  };
}
