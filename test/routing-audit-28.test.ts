import { describeLanes } from './helpers/routing.ts';

/**
 * The lane classifier as a user meets it through svc-shiplow (docs/api-decisions.md, "Lane
 * classifier: session 28"): three reported misses, then the kinds of prompt a probe of 132
 * everyday prompts found in the wrong lane: short questions about programming concepts with no
 * code in them, everyday installs and updates of phones and household things, everyday questions
 * in Japanese, and short greetings in another language.
 */
const REPORTED = [
  ['日本で一番高い山は何ですか？', 'multilingual'],
  ["What's the difference between let and const?", 'code'],
  ['How do I update my iPhone to the latest iOS?', 'general'],
] as const;

const MISSED = {
  code: [
    'What is a closure?',
    'How do I exit vim?',
    "What's the difference between a list and a tuple?",
    'What is recursion?',
    'What is polymorphism?',
    'What does the static keyword do?',
    'What is a hash map?',
    '¿Cuál es la diferencia entre let y const?',
    'Was ist ein Pointer?',
  ],
  general: [
    'How do I install a ceiling fan?',
    'How do I install a dishwasher?',
    'Can I install solar panels myself?',
    'How do I update Windows 11?',
  ],
  multilingual: ['世界で一番長い川は何ですか？', '一番おいしいラーメン屋はどこですか？', '¿Qué tal?', 'Olá!'],
} as const;

describeLanes('routing: session 28 lane classifier', REPORTED, MISSED);
