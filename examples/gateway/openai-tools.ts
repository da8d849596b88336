// A tool loop with the official OpenAI SDK: the model calls a function, the program runs it and
// sends the result back, until the model answers in text.
// Run: SVC_KEY=svk_... npx tsx examples/gateway/openai-tools.ts
import OpenAI from 'openai';

const url = process.env.SVC_URL ?? 'http://localhost:8080';
const apiKey = process.env.SVC_KEY;
if (!apiKey) throw new Error('Set SVC_KEY to an svk_ key: npm run admin -- keys create <account id>');

const client = new OpenAI({ apiKey, baseURL: `${url}/v1` });

// The tool itself: your code, run on your side.
function getWeather(args: { city: string }): string {
  return JSON.stringify({ city: args.city, forecast: 'sunny', celsius: 21 });
}

const tools: OpenAI.ChatCompletionTool[] = [
  {
    type: 'function',
    function: {
      name: 'get_weather',
      description: 'The weather forecast for a city',
      parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
    },
  },
];
const messages: OpenAI.ChatCompletionMessageParam[] = [{ role: 'user', content: 'What is the weather in Paris?' }];

for (let turn = 0; turn < 5; turn++) {
  const completion = await client.chat.completions.create({ model: 'svc-fast', messages, tools });
  const message = completion.choices[0]!.message;
  messages.push(message);
  if (!message.tool_calls?.length) {
    console.log(message.content);
    process.exit(0);
  }
  for (const call of message.tool_calls) {
    if (call.type !== 'function') continue;
    const result = getWeather(JSON.parse(call.function.arguments));
    console.log(`called ${call.function.name}(${call.function.arguments}) -> ${result}`);
    messages.push({ role: 'tool', tool_call_id: call.id, content: result });
  }
}
throw new Error('the model did not answer in text after 5 turns');
