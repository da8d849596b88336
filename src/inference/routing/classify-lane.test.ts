import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { CanonicalChatRequest, CanonicalMessage } from '../canonical/chat.ts';
import { classifyLane, type Lane } from './classify-lane.ts';

const user = (text: string): CanonicalMessage => ({ role: 'user', content: [{ type: 'text', text }] });
const assistant = (text: string): CanonicalMessage => ({ role: 'assistant', content: text, toolCalls: [] });
const request = (messages: CanonicalMessage[], extra: Partial<CanonicalChatRequest> = {}): CanonicalChatRequest => ({
  messages,
  tools: [],
  stop: [],
  stream: false,
  ...extra,
});
const lane = (text: string): Lane => classifyLane(request([user(text)]));

function expectAll(expected: Lane, texts: readonly string[]): void {
  for (const text of texts) assert.equal(lane(text), expected, text);
}

describe('classifyLane: structural rules', () => {
  it('puts a request with an image anywhere in vision, before any other rule', () => {
    const image: CanonicalMessage = {
      role: 'user',
      content: [
        { type: 'text', text: 'Fix the Python code in this screenshot' },
        { type: 'image', url: 'data:image/png;base64,iVBORw0KGgo=' },
      ],
    };
    assert.equal(classifyLane(request([image, assistant('Sure.'), user('thanks')])), 'vision');
    const tool = { name: 'lookup', parameters: { type: 'object' } };
    assert.equal(classifyLane(request([image], { tools: [tool] })), 'vision');
  });

  it('puts declared tools, tool calls and tool results in agent, whatever the text', () => {
    const tool = { name: 'get_weather', parameters: { type: 'object' } };
    assert.equal(classifyLane(request([user('Solve 3x + 5 = 20')], { tools: [tool] })), 'agent');
    const history: CanonicalMessage[] = [
      user('What is the weather in Oslo?'),
      { role: 'assistant', content: '', toolCalls: [{ id: 'call_1', name: 'get_weather', arguments: '{}' }] },
      { role: 'tool', toolCallId: 'call_1', content: '{"temp_c": -3}' },
      user('Write a Python function that converts that to Fahrenheit'),
    ];
    assert.equal(classifyLane(request(history)), 'agent');
  });

  it('answers general when there is no user text to read', () => {
    assert.equal(classifyLane(request([])), 'general');
    assert.equal(classifyLane(request([{ role: 'system', content: 'You write Rust code.' }])), 'general');
    assert.equal(classifyLane(request([user('   \n ')])), 'general');
  });
});

describe('classifyLane: text lanes', () => {
  it('code: writing, fixing, explaining code, configuration, regexes and stack traces, in several languages', () => {
    expectAll('code', [
      'Write a TypeScript function that groups an array of orders by customer id.',
      'Why does this throw?\n\n```js\nconst xs = null;\nxs.forEach((x) => console.log(x));\n```',
      'Explain this regex: ^[A-Z]{2}\\d{6}$',
      'Traceback (most recent call last):\n  File "main.py", line 3, in <module>\n    print(1 / 0)\nZeroDivisionError: division by zero',
      'Write a SQL query that lists customers with no orders in 2024.',
      "What's wrong with my Dockerfile?\nFROM python:3.12\nCOPY . .\nRUN pip install -r requirements.txt\nCMD python app.py",
      'Escribe una función en Python que cuente las vocales de una cadena.',
      'Écris un script Bash qui sauvegarde un dossier chaque nuit.',
      'Warum funktioniert diese Funktion nicht?\n\ndef add(a, b):\n    return a - b',
      '用Python写一个函数，计算列表里所有偶数的和。',
      'このJavaScriptのコードを説明してください。\nconst sum = xs.reduce((a, b) => a + b, 0);',
    ]);
  });

  it('math: solving, computing, proving and explaining mathematics, in several languages', () => {
    expectAll('math', [
      'Solve for x: 4x - 7 = 21',
      'What is the derivative of x^2 * ln(x)?',
      'If I roll three dice, what is the probability that all three show the same number?',
      'Prove that the product of two odd numbers is odd.',
      'A car travels 240 km in 3 hours. What is its average speed?',
      'Résous l\'équation 5x + 3 = 28.',
      'Calcula el área de un círculo de radio 7 cm.',
      '解方程 3x - 4 = 11',
      'Найди производную функции x^3 + 2x.',
    ]);
  });

  it('multilingual: requests mainly in another language, and translation between human languages', () => {
    expectAll('multilingual', [
      '¿Me recomiendas un libro para las vacaciones?',
      'Peux-tu me donner une recette de ratatouille ?',
      'Was sind gute Ausflugsziele rund um München?',
      '週末に東京でおすすめのカフェはありますか？',
      'ما هي أفضل طريقة لتعلم الطبخ؟',
      'Translate "see you tomorrow at the station" into German.',
      'How do you say "I am lost" in Japanese?',
    ]);
  });

  it('general: everything else, including requests about code or mathematics that ask for neither', () => {
    expectAll('general', [
      'Write a thank-you note to my neighbour for watering my plants.',
      'What are some tips for a long flight with a toddler?',
      'Summarize the causes of the French Revolution in a paragraph.',
      'Write a poem about mathematics.',
      'hello there',
    ]);
  });

  it('general: everyday questions that name a product spelled like an identifier, and "say" without a language', () => {
    expectAll('general', [
      'What does PayPal charge for refunds?',
      'Is YouTube Premium worth it?',
      'How do I cancel my iPhone subscription?',
      'How do I contact eBay support?',
      'How do I reset my PlayStation?',
      "Is McDonald's open on Christmas?",
      'How do I turn off iCloud photo sync?',
      'Is GitHub Copilot worth it for a student?',
      'Say hello.',
      'Say it again, slower.',
    ]);
    // ... while identifiers of code and a language's wording keep their lanes.
    expectAll('code', ['Why does getElementById return null?', 'How do I use useState in React?', 'Python raises TypeError: unhashable type, why?']);
    expectAll('multilingual', ['How do you say hello in Japanese?', 'Say "good luck" in German.']);
  });

  it('general: an operating system named like an identifier, and short English that the language detector takes for another language', () => {
    expectAll('general', [
      'What are the main differences between Windows and macOS for everyday use?',
      'Should I update my iPhone to the latest iOS right away?',
      'Hello mate',
      'Wave hello.',
      'Tell Anna hello.',
    ]);
    // ... while short greetings in another language stay multilingual.
    expectAll('multilingual', ['Hola amigo', 'Grazie mille', 'Danke schön', 'Merci beaucoup !', 'Kiitos paljon']);
  });

  it('general: everyday English requests that name a nationality, a cuisine or a foreign dish', () => {
    expectAll('general', [
      'Give me a simple Spanish omelette recipe.',
      'Give me a simple omelette recipe.',
      'What is a traditional Japanese breakfast?',
      'Is Spanish food spicy?',
      'Are German cars reliable?',
      'Is Korean skincare worth it?',
      'Where can I learn Spanish dancing?',
    ]);
    // ... while the wording of the language itself stays multilingual.
    expectAll('multilingual', ['What is the difference between ser and estar in Spanish?', 'How do you say "cheers" in German?', 'What does "saudade" mean in Portuguese?']);
  });

  it('follows the precedence code, then math, then multilingual', () => {
    assert.equal(lane('Arregla este código Python: for i in range(10) print(i)'), 'code');
    assert.equal(lane('Resuelve el sistema: x + y = 10, x - y = 2'), 'math');
    assert.equal(lane('Write a Python function that computes the median of a list.'), 'code');
  });

  it('reads only the head and tail of a very long message', () => {
    const code = 'function f(a, b) {\n  return a.map((x) => x * b).filter(Boolean);\n}\n';
    const long = `Why is this so slow?\n${code.repeat(4000)}`;
    assert.equal(lane(long), 'code');
  });

  it("reads the system text in a conversation's first turn when the message alone is unsure", () => {
    const system = (text: string): CanonicalMessage => ({ role: 'system', content: text });
    assert.equal(classifyLane(request([system('You write SQL queries for a PostgreSQL database.'), user('customers without orders in 2024')])), 'code');
    assert.equal(classifyLane(request([system('You write SQL queries for a PostgreSQL database.'), user('Solve for x: 4x - 7 = 21')])), 'math');
    assert.equal(classifyLane(request([system('   '), user('hello there')])), 'general');
  });

  it('reads a text document as text', () => {
    const code = 'def walk(root):\n    for dirpath, dirs, files in os.walk(root):\n        for f in files:\n            yield f\n';
    const doc: CanonicalMessage = { role: 'user', content: [{ type: 'document', source: { type: 'text', text: code } }, { type: 'text', text: 'What does this do?' }] };
    assert.equal(classifyLane(request([doc])), 'code');
  });

  it('uses the previous user message for a follow-up that says little by itself', () => {
    const history = [
      user('Write a Go function that reverses a slice of ints.'),
      assistant('func reverse(s []int) { for i, j := 0, len(s)-1; i < j; i, j = i+1, j-1 { s[i], s[j] = s[j], s[i] } }'),
      user('Now make it generic.'),
    ];
    assert.equal(classifyLane(request(history)), 'code');
  });
});
