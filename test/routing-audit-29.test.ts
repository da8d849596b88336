import { describeLanes } from './helpers/routing.ts';

/**
 * The lane classifier as a user meets it through svc-shiplow (docs/api-decisions.md, "Lane
 * classifier: session 29"): the reported misses, then a few of the kinds a probe of 170 everyday
 * prompts found: networking and programming concepts asked in English or in another language
 * (code comes before multilingual, docs/routing.md), a container's state named without the word
 * docker, and one-letter messages.
 */
const REPORTED = [
  ['Explain the difference between TCP and UDP.', 'code'],
  ['¿Qué es un bucle for?', 'code'],
  ['什么是哈希表？', 'code'],
  ["Qu'est-ce qu'une classe abstraite ?", 'code'],
  ['k', 'general'],
  ['My container is in Created state and will not start, what is wrong?', 'code'],
] as const;

const MISSED = {
  code: [
    'What is the difference between TCP and UDP?',
    'TCP vs UDP?',
    'How does a TCP three-way handshake work?',
    'What is a load balancer?',
    '¿Cuál es la diferencia entre TCP y UDP?',
    '什么是链表？',
    "Qu'est-ce qu'une boucle for ?",
    'Why does my container stay in the Created state?',
  ],
  general: ['y', 'What is a handshake in business etiquette?'],
  multilingual: ['¿Qué es la fotosíntesis?', '什么是通货膨胀？', "Qu'est-ce que l'inflation ?"],
} as const;

describeLanes('routing: session 29 lane classifier', REPORTED, MISSED);
