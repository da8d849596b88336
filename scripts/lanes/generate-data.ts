/**
 * Generates the labelled lane data set (`npx tsx scripts/lanes/generate-data.ts`): templates with
 * varied fillers in English and other languages, plus the hand-written cases of hand-cases.ts,
 * written to src/inference/routing/lanes/data/lanes.jsonl. Deterministic (seeded), so re-running it
 * reproduces the committed file. Each record is one request with its lane and its split: a fixed
 * quarter of the records (by a hash of the id) is the held-out `test` split.
 */
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { DATA_FRAGMENTS, everydayCases, session29Cases } from './everyday-cases.ts';
import { HAND_CASES } from './hand-cases.ts';
import { CODE_CONCEPTS, GENERAL_MORE, MATH_WORDS } from './more-cases.ts';
import { CONFIGS, EN_PROSE, FOREIGN_PROSE, REGEXES, SNIPPETS, TRACES } from './snippets.ts';
import { splitOf, type LaneRecord, type RecordMessage } from '../../src/inference/routing/lanes/data-set.ts';

let seed = 20261126;
function rnd(): number {
  seed = (seed + 0x6d2b79f5) | 0;
  let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
}
const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)] as T;
const int = (lo: number, hi: number): number => lo + Math.floor(rnd() * (hi - lo + 1));
const fill = (template: string, slots: Record<string, () => string>): string =>
  template.replace(/\{(\w+)\}/g, (_, k: string) => (slots[k] ? slots[k]() : `{${k}}`));
/** Casual variation: lower-case start, dropped final punctuation, now and then. */
function casual(s: string): string {
  let out = s;
  if (rnd() < 0.2) out = out.charAt(0).toLowerCase() + out.slice(1);
  if (rnd() < 0.15) out = out.replace(/[.?!]$/, '');
  return out;
}

const records: LaneRecord[] = [];
const counters = new Map<string, number>();
const seen = new Set<string>();
function add(lane: LaneRecord['lane'], lang: string, messages: RecordMessage[] | string, extra: Partial<LaneRecord> = {}): void {
  const msgs = typeof messages === 'string' ? [{ role: 'user' as const, content: messages }] : messages;
  // A template drawn twice with the same fillers would leak between the splits.
  const text = JSON.stringify([msgs, extra.image, extra.tools]);
  if (seen.has(text)) return;
  seen.add(text);
  const key = `${lane}-${lang}`;
  const n = (counters.get(key) ?? 0) + 1;
  counters.set(key, n);
  const id = `${key}-${String(n).padStart(3, '0')}`;
  records.push({ id, lane, lang, source: 'template', split: splitOf(id), messages: msgs, ...extra });
}

// ---------------------------------------------------------------- code (English)
const PROG = ['Python', 'JavaScript', 'TypeScript', 'Go', 'Rust', 'Java', 'C#', 'C++', 'Ruby', 'PHP', 'Kotlin', 'Swift'];
const TASKS = [
  'reverses a linked list',
  'checks whether a string is a palindrome',
  'parses an ISO 8601 date and returns the weekday',
  'debounces a callback',
  'merges two sorted arrays',
  'flattens a nested list',
  'counts word frequencies in a text file',
  'retries an HTTP request with exponential backoff',
  'validates an email address',
  'computes the Levenshtein distance between two strings',
  'reads a CSV file and groups the rows by a column',
  'finds duplicate files in a folder by their hash',
  'implements an LRU cache',
  'removes duplicates from an array but keeps the order',
  'generates a random password of a given length',
  'serializes a binary tree to a string and back',
  'calculates the total price of a shopping cart with tax',
  'sums the numbers in a list that are divisible by 3 or 5',
  'returns the n-th Fibonacci number efficiently',
  'checks if a number is prime',
  'downloads a web page and extracts all links',
  'watches a directory and logs new files',
];
const SYMPTOMS = [
  'return None',
  'print the wrong value',
  'crash with a null pointer',
  'hang forever',
  'run so slowly on big inputs',
  'not compile',
  'give a different result every time',
  'leak memory',
];
const TEST_FW = ['pytest', 'Jest', 'JUnit 5', 'Go testing', 'Vitest', 'RSpec', 'node:test'];
const SQL_TASKS = [
  'finds the top 5 customers by total spend in 2023',
  'returns every employee whose salary is above the average of their department',
  'deletes duplicate rows but keeps the one with the lowest id',
  'counts orders per month for the last year',
  'lists products that were never ordered',
  'computes a running total of sales per day',
];
const SHELL_TASKS = [
  'find all files larger than 100 MB',
  'rename every .jpeg file to .jpg in a folder',
  'count the lines of code in a project excluding node_modules',
  'kill the process listening on port 8080',
  'replace a word in all files recursively',
  'show the 10 biggest directories',
  'tail a log file and only show lines with ERROR',
  'compress a folder into a tar.gz excluding .git',
];
const GIT_TASKS = [
  'undo my last commit but keep the changes',
  'squash my last three commits',
  'delete a remote branch',
  'move uncommitted changes to a new branch',
  'remove a file from history that contains a password',
  'resolve a merge conflict in package-lock.json',
];
const REGEX_TASKS = [
  'matches a UK postcode',
  'extracts all hashtags from a tweet',
  'validates a semantic version like 1.2.3-beta',
  'matches dates in the form DD/MM/YYYY',
  'finds repeated words like "the the"',
];
const CODE_QUESTIONS = [
  "What's the difference between let, const and var in JavaScript?",
  'How do Python decorators work? Show an example.',
  'When should I use a goroutine and a channel instead of a mutex?',
  'Explain Rust lifetimes with a small example.',
  'What does the `yield` keyword do in Python?',
  'How do I center a div with flexbox?',
  'Is it better to use useEffect or useMemo for this in React?',
  'How do I read a file line by line in Go?',
  'What is the difference between an abstract class and an interface in Java?',
  'How can I make this SQL query use an index?',
  'why is my docker container exiting immediately with code 0',
  'how to add a column with a default value in postgres without locking the table',
  'What is a closure in JavaScript, with code?',
  'How do async and await work under the hood in C#?',
  'What does `git rebase -i HEAD~3` do?',
  'python list comprehension with if else',
  'js sort array of objects by date descending',
  'segfault when freeing memory in C, why?',
  'How do I type a function that takes a callback in TypeScript?',
  'What is the time complexity of this nested loop: for i in range(n): for j in range(i): pass',
];

function codeEnglish(): void {
  const slots = {
    L: () => pick(PROG),
    task: () => pick(TASKS),
    fw: () => pick(TEST_FW),
    sql: () => pick(SQL_TASKS),
    shell: () => pick(SHELL_TASKS),
    git: () => pick(GIT_TASKS),
    rtask: () => pick(REGEX_TASKS),
  };
  const writeTemplates = [
    'Write a {L} function that {task}.',
    'Can you write me a {L} script that {task}?',
    'I need some {L} code that {task}. Please keep it simple and add comments.',
    'How would I write something in {L} that {task}?',
    'Implement a function that {task}, in {L}.',
    'Give me an idiomatic {L} example that {task}.',
    'write {L} code that {task}',
    'Write a SQL query that {sql}.',
    'I have a table orders(id, customer_id, total, created_at). Write a query that {sql}.',
    'Give me a bash one-liner to {shell}.',
    'How do I {shell} from the terminal?',
    'How do I {git} in git?',
    'Write a regex that {rtask}.',
    'I need a regular expression that {rtask}, with an explanation.',
  ];
  for (const t of writeTemplates) for (let i = 0; i < 5; i++) add('code', 'en', casual(fill(t, slots)));
  for (const q of CODE_QUESTIONS) add('code', 'en', q);

  const pasteTemplates = [
    'Why does this {L} code {symptom}?\n\n```\n{code}\n```',
    'Fix this:\n\n{code}',
    '{code}\n\nwhat is wrong here?',
    'Explain what this code does, line by line:\n```\n{code}\n```',
    'Can you review this function and suggest improvements?\n\n{code}',
    'Refactor this to be more readable:\n{code}',
    'Write unit tests for this with {fw}:\n\n```\n{code}\n```',
    'Translate this {L} code to {L2}:\n{code}',
    'Add type hints and docstrings to this:\n{code}',
    '```\n{code}\n```\nthis works but it is slow, how can I speed it up?',
  ];
  for (const t of pasteTemplates) {
    for (let i = 0; i < 4; i++) {
      const s = pick(SNIPPETS);
      add(
        'code',
        'en',
        fill(t, { ...slots, L: () => s.lang, L2: () => pick(PROG.filter((p) => p !== s.lang)), code: () => s.code, symptom: () => pick(SYMPTOMS) }),
      );
    }
  }
  const traceTemplates = [
    "I'm getting this error and I don't understand it:\n\n{trace}",
    '{trace}',
    '{trace}\n\nhow do I fix this?',
    'My build fails with:\n```\n{trace}\n```\nAny idea?',
    'What does this mean?\n{trace}',
  ];
  for (const t of traceTemplates) for (let i = 0; i < 4; i++) add('code', 'en', fill(t, { trace: () => pick(TRACES) }));
  const configTemplates = [
    "What's wrong with my {kind}?\n\n{text}",
    'Can you explain this {kind} to me?\n{text}',
    'Review this {kind} for security problems:\n\n{text}',
    'Write a {kind} for a Node.js app with a PostgreSQL database.',
  ];
  for (const t of configTemplates) {
    for (let i = 0; i < 3; i++) {
      const c = pick(CONFIGS);
      add('code', 'en', fill(t, { kind: () => c.kind, text: () => c.text }));
    }
  }
  for (const r of REGEXES) add('code', 'en', pick(['Explain this regex: ', 'What does this regular expression match? ', 'Can you break down this regex for me: ']) + r);
}

// ---------------------------------------------------------------- code (other languages)
interface CodeLang {
  readonly lang: string;
  readonly write: readonly string[];
  readonly tasks: readonly string[];
  readonly paste: readonly string[];
  readonly trace: readonly string[];
  readonly questions: readonly string[];
}
const CODE_LANGS: readonly CodeLang[] = [
  {
    lang: 'es',
    write: ['Escribe una función en {L} que {task}.', '¿Me puedes hacer un script en {L} que {task}?', 'Necesito código {L} que {task}, con comentarios por favor.'],
    tasks: ['invierta una cadena', 'lea un archivo CSV y calcule el promedio de una columna', 'valide un correo electrónico', 'ordene una lista de diccionarios por fecha', 'elimine los duplicados de un array', 'descargue una página web y guarde los enlaces'],
    paste: ['¿Por qué este código no funciona?\n\n{code}', 'Explícame qué hace este código:\n```\n{code}\n```', 'Revisa mi código y dime qué puedo mejorar:\n{code}', 'Tengo un bug aquí, ¿lo ves?\n{code}'],
    trace: ['Me sale este error y no sé cómo arreglarlo:\n{trace}', '¿Qué significa este error?\n{trace}'],
    questions: ['¿Cuál es la diferencia entre let y var en JavaScript?', '¿Cómo hago un JOIN entre dos tablas en SQL?', 'Explícame esta expresión regular: ^\\d{5}$', '¿Cómo deshago el último commit en git sin perder los cambios?', '¿Cómo creo un entorno virtual en Python?'],
  },
  {
    lang: 'fr',
    write: ['Écris une fonction {L} qui {task}.', 'Peux-tu me coder un script {L} qui {task} ?', "J'ai besoin d'une classe {L} qui {task}."],
    tasks: ['inverse une liste chaînée', 'lit un fichier JSON et affiche les clés', 'vérifie si un nombre est premier', 'trie un tableau d\'objets par nom', 'envoie un e-mail avec une pièce jointe', 'compte les mots dans un texte'],
    paste: ['Pourquoi ce code plante-t-il ?\n\n{code}', 'Peux-tu m\'expliquer ce que fait ce code ?\n```\n{code}\n```', 'Corrige ce code s\'il te plaît :\n{code}', 'Comment optimiser cette fonction ?\n{code}'],
    trace: ["J'ai cette erreur, qu'est-ce que ça veut dire ?\n{trace}", 'Mon programme affiche ceci :\n{trace}\nComment corriger ?'],
    questions: ['Quelle est la différence entre une liste et un tuple en Python ?', 'Comment faire une requête SQL qui compte les commandes par client ?', 'Explique-moi les promesses en JavaScript avec un exemple.', 'Comment configurer nginx comme reverse proxy pour une appli Node ?'],
  },
  {
    lang: 'de',
    write: ['Schreib eine {L}-Funktion, die {task}.', 'Kannst du mir ein {L}-Skript schreiben, das {task}?', 'Ich brauche {L}-Code, der {task}.'],
    tasks: ['eine Liste umkehrt', 'prüft, ob ein String ein Palindrom ist', 'eine CSV-Datei einliest und die Summe einer Spalte berechnet', 'doppelte Einträge aus einer Liste entfernt', 'eine REST-API abfragt und das Ergebnis cached', 'alle Dateien in einem Ordner umbenennt'],
    paste: ['Warum funktioniert dieser Code nicht?\n\n{code}', 'Kannst du mir erklären, was dieser Code macht?\n```\n{code}\n```', 'Bitte refaktoriere diesen Code:\n{code}', 'Hier ist ein Fehler drin, aber ich finde ihn nicht:\n{code}'],
    trace: ['Ich bekomme diese Fehlermeldung:\n{trace}\nWas mache ich falsch?', 'Was bedeutet dieser Fehler?\n{trace}'],
    questions: ['Was ist der Unterschied zwischen einer abstrakten Klasse und einem Interface in Java?', 'Wie schreibe ich eine SQL-Abfrage mit GROUP BY und HAVING?', 'Wie lösche ich einen Branch in git auf dem Server?', 'Erklär mir bitte async/await in JavaScript.'],
  },
  {
    lang: 'pt',
    write: ['Escreva uma função em {L} que {task}.', 'Pode me fazer um script em {L} que {task}?', 'Preciso de um código {L} que {task}.'],
    tasks: ['inverta uma string', 'leia um arquivo CSV e some uma coluna', 'valide um CPF', 'ordene uma lista de objetos por data', 'conecte no banco de dados PostgreSQL', 'remova itens duplicados de uma lista'],
    paste: ['Por que esse código não funciona?\n\n{code}', 'Me explica o que esse código faz:\n```\n{code}\n```', 'Pode revisar meu código?\n{code}'],
    trace: ['Estou recebendo esse erro:\n{trace}\nComo resolvo?', 'O que significa esse erro?\n{trace}'],
    questions: ['Qual a diferença entre == e === em JavaScript?', 'Como faço um LEFT JOIN no SQL?', 'Como crio um Dockerfile para uma aplicação Python?', 'Como funciona o useState no React?'],
  },
  {
    lang: 'it',
    write: ['Scrivi una funzione in {L} che {task}.', 'Mi scrivi uno script {L} che {task}?', 'Ho bisogno di codice {L} che {task}.'],
    tasks: ['inverte una stringa', 'legge un file CSV e calcola la media', 'controlla se un numero è primo', 'ordina una lista di dizionari per età', 'rimuove i duplicati da un array'],
    paste: ['Perché questo codice non funziona?\n\n{code}', 'Mi spieghi cosa fa questo codice?\n```\n{code}\n```', 'Puoi correggere questo codice?\n{code}'],
    trace: ['Ho questo errore:\n{trace}\nCome lo risolvo?'],
    questions: ['Qual è la differenza tra una lista e una tupla in Python?', 'Come faccio una query SQL che conta gli ordini per cliente?', 'Come annullo un commit in git?'],
  },
  {
    lang: 'zh',
    write: ['用{L}写一个函数，{task}。', '请帮我写一个{L}脚本，{task}。', '怎么用{L}实现{task}？'],
    tasks: ['反转一个链表', '判断一个字符串是不是回文', '读取CSV文件并按某一列分组', '去掉数组里重复的元素', '计算两个日期之间相差多少天', '实现一个LRU缓存'],
    paste: ['这段代码为什么报错？\n\n{code}', '帮我解释一下这段代码：\n```\n{code}\n```', '帮我优化一下这段代码：\n{code}', '这段代码有什么问题？\n{code}'],
    trace: ['运行的时候出现这个错误，怎么解决？\n{trace}', '这个报错是什么意思？\n{trace}'],
    questions: ['Python里的列表和元组有什么区别？', 'SQL 怎么写一个查询统计每个用户的订单数量？', 'git 怎么撤销上一次提交？', '解释一下这个正则表达式：^[a-z0-9_-]{3,16}$', 'JavaScript 的闭包是什么？举个例子'],
  },
  {
    lang: 'ja',
    write: ['{L}で{task}関数を書いてください。', '{task}{L}のスクリプトを作ってもらえますか？', '{L}で{task}方法を教えてください。'],
    tasks: ['文字列を逆順にする', 'CSVファイルを読み込んで合計を計算する', 'リストから重複を取り除く', 'メールアドレスを検証する', 'フォルダ内のファイル名を一括で変更する'],
    paste: ['このコードがエラーになる理由を教えてください。\n\n{code}', 'このコードは何をしていますか？\n```\n{code}\n```', 'このコードをリファクタリングしてください。\n{code}'],
    trace: ['次のエラーが出ます。どう直せばいいですか？\n{trace}', 'このエラーの意味は？\n{trace}'],
    questions: ['Pythonのリストとタプルの違いは何ですか？', 'SQLでユーザーごとの注文数を数えるクエリを書いてください。', 'gitで直前のコミットを取り消すには？', 'JavaScriptのPromiseについて例を使って説明してください。'],
  },
  {
    lang: 'ru',
    write: ['Напиши функцию на {L}, которая {task}.', 'Можешь написать скрипт на {L}, который {task}?', 'Нужен код на {L}, который {task}.'],
    tasks: ['переворачивает строку', 'проверяет, является ли число простым', 'читает CSV-файл и считает сумму столбца', 'удаляет дубликаты из списка', 'парсит JSON и выводит все ключи'],
    paste: ['Почему этот код не работает?\n\n{code}', 'Объясни, что делает этот код:\n```\n{code}\n```', 'Исправь, пожалуйста, ошибку в коде:\n{code}'],
    trace: ['Получаю такую ошибку:\n{trace}\nЧто делать?', 'Что означает эта ошибка?\n{trace}'],
    questions: ['В чём разница между списком и кортежем в Python?', 'Как написать SQL-запрос, который считает заказы по месяцам?', 'Как отменить последний коммит в git?', 'Объясни замыкания в JavaScript на примере.'],
  },
  {
    lang: 'ko',
    write: ['{L}로 {task} 함수를 작성해 주세요.', '{task} {L} 스크립트를 만들어 줄 수 있나요?'],
    tasks: ['문자열을 뒤집는', '리스트에서 중복을 제거하는', 'CSV 파일을 읽어서 평균을 계산하는', '소수인지 확인하는'],
    paste: ['이 코드가 왜 작동하지 않나요?\n\n{code}', '이 코드가 무엇을 하는지 설명해 주세요.\n```\n{code}\n```'],
    trace: ['이런 에러가 납니다. 어떻게 고치나요?\n{trace}'],
    questions: ['파이썬에서 리스트와 튜플의 차이는 무엇인가요?', 'SQL로 사용자별 주문 수를 세는 쿼리를 알려주세요.', 'git에서 마지막 커밋을 취소하려면 어떻게 하나요?'],
  },
  {
    lang: 'ar',
    write: ['اكتب دالة بلغة {L} {task}.'],
    tasks: ['تعكس سلسلة نصية', 'تتحقق مما إذا كان الرقم أوليًا', 'تقرأ ملف CSV وتحسب المتوسط'],
    paste: ['لماذا لا يعمل هذا الكود؟\n\n{code}', 'اشرح لي ماذا يفعل هذا الكود:\n{code}'],
    trace: ['يظهر لي هذا الخطأ، كيف أصلحه؟\n{trace}'],
    questions: ['ما الفرق بين القائمة و tuple في بايثون؟', 'كيف أكتب استعلام SQL لحساب عدد الطلبات لكل عميل؟'],
  },
  {
    lang: 'hi',
    write: ['{L} में एक फ़ंक्शन लिखो जो {task}।'],
    tasks: ['एक स्ट्रिंग को उल्टा करे', 'जाँचे कि संख्या अभाज्य है या नहीं', 'CSV फ़ाइल पढ़कर औसत निकाले'],
    paste: ['यह कोड काम क्यों नहीं कर रहा?\n\n{code}', 'यह कोड क्या करता है, समझाइए:\n{code}'],
    trace: ['मुझे यह एरर आ रहा है, इसे कैसे ठीक करूँ?\n{trace}'],
    questions: ['Python में list और tuple में क्या अंतर है?', 'SQL में JOIN कैसे लिखते हैं?'],
  },
];

function codeOther(): void {
  for (const cl of CODE_LANGS) {
    for (const t of cl.write) for (let i = 0; i < 3; i++) add('code', cl.lang, fill(t, { L: () => pick(PROG), task: () => pick(cl.tasks) }));
    for (const t of cl.paste) for (let i = 0; i < 2; i++) add('code', cl.lang, fill(t, { code: () => pick(SNIPPETS).code }));
    for (const t of cl.trace) add('code', cl.lang, fill(t, { trace: () => pick(TRACES) }));
    for (const q of cl.questions) add('code', cl.lang, q);
  }
}

// ---------------------------------------------------------------- math (English)
function poly(): string {
  const a = int(1, 9);
  const b = int(1, 12);
  const c = int(1, 20);
  return pick([`${a}x^3 - ${b}x + ${c}`, `x^2 * sin(x)`, `e^(${a}x) / x`, `ln(x^2 + ${b})`, `${a}x^4 + ${b}x^2 - ${c}`, `sqrt(${a}x + ${b})`, `cos(${a}x)^2`, `x * e^(-x)`]);
}
function mathEnglish(): void {
  const gen: Array<() => string> = [
    () => `Solve for x: ${int(2, 9)}x + ${int(1, 30)} = ${int(31, 90)}`,
    () => `Find x if ${int(2, 7)}(x - ${int(1, 9)}) = ${int(10, 60)}.`,
    () => `What value of y satisfies ${int(2, 9)}y - ${int(1, 9)} = ${int(1, 5)}y + ${int(10, 30)}?`,
    () => `Solve x^2 - ${int(2, 9)}x + ${int(1, 14)} = 0`,
    () => `Find the roots of ${int(2, 5)}x² + ${int(1, 9)}x - ${int(1, 9)} = 0 and explain each step.`,
    () => `Factor x^2 - ${pick([9, 16, 25, 36, 49, 64])} completely.`,
    () => `solve the system: ${int(1, 5)}x + ${int(1, 5)}y = ${int(5, 20)} and ${int(1, 5)}x - y = ${int(1, 9)}`,
    () => `What is the derivative of ${poly()}?`,
    () => `Differentiate f(x) = ${poly()} with respect to x.`,
    () => `Integrate ${poly()} dx`,
    () => `Compute the definite integral of x^${int(2, 5)} from 0 to ${int(1, 4)}.`,
    () => `Find the limit of (sin(${int(2, 5)}x))/x as x approaches 0.`,
    () => `Find the maximum value of f(x) = -x^2 + ${int(2, 10)}x + ${int(1, 9)}.`,
    () => `If I roll two fair dice, what is the probability that the sum is ${int(2, 12)}?`,
    () => `A bag has ${int(3, 9)} red and ${int(2, 8)} blue marbles. Two are drawn without replacement. What is the probability that both are red?`,
    () => `What's the chance of getting at least one six in ${int(2, 8)} rolls of a die?`,
    () => `If I flip a fair coin ${int(5, 12)} times, what is the probability of exactly ${int(2, 5)} heads?`,
    () => `A test is ${int(90, 99)}% accurate and the disease affects ${int(1, 5)}% of people. If someone tests positive, what is the probability they have it?`,
    () => `A circle has a radius of ${int(2, 15)} cm. What is its area and circumference?`,
    () => `Find the hypotenuse of a right triangle with legs ${int(3, 12)} and ${int(4, 15)}.`,
    () => `What's the volume of a cylinder with radius ${int(2, 9)} m and height ${int(3, 20)} m?`,
    () => `What is the sum of the interior angles of a polygon with ${int(5, 12)} sides?`,
    () => `A ladder ${int(5, 12)} meters long leans against a wall with its foot ${int(1, 4)} meters from the wall. How high up the wall does it reach?`,
    () => `A train leaves a station at ${int(40, 90)} km/h and another leaves ${int(1, 3)} hours later at ${int(90, 140)} km/h on the same track. When does the second train catch up?`,
    () => `Tom is ${int(2, 5)} times as old as his son. In ${int(5, 15)} years he will be twice as old. How old are they now?`,
    () => `If I invest $${int(1, 20) * 500} at ${int(2, 9)}% interest compounded annually, how much will I have after ${int(3, 30)} years?`,
    () => `A jacket costs $${int(40, 200)} and is ${int(10, 60)}% off. What is the sale price?`,
    () => `${int(3, 8)} workers can build a wall in ${int(4, 12)} days. How long would it take ${int(2, 12)} workers?`,
    () => `How many ways can ${int(4, 10)} people sit around a round table?`,
    () => `How many different ${int(3, 5)}-letter codes can be made from the 26 letters if no letter repeats?`,
    () => `Find the mean, median and standard deviation of ${Array.from({ length: int(5, 9) }, () => int(1, 60)).join(', ')}.`,
    () => `Compute the determinant of the matrix [[${int(1, 9)}, ${int(1, 9)}], [${int(1, 9)}, ${int(1, 9)}]].`,
    () => `Find the eigenvalues of [[${int(1, 6)}, ${int(0, 3)}], [${int(0, 3)}, ${int(1, 6)}]].`,
    () => `What is ${int(12, 99)} * ${int(12, 99)}?`,
    () => `What's ${int(5, 40)}% of ${int(50, 2000)}?`,
    () => `Convert ${int(2, 42)} miles to kilometers.`,
    () => `Simplify ${int(2, 9) * 6}/${int(2, 9) * 6} and write it as a mixed number if needed.`,
    () => `Is ${int(100, 999)} a prime number? Show how you check.`,
    () => `What is the greatest common divisor of ${int(12, 200)} and ${int(12, 200)}?`,
    () => `calculate ${int(2, 9)}^${int(5, 12)} mod ${int(7, 13)}`,
    () => `A rectangle's length is ${int(2, 5)} more than twice its width and its perimeter is ${int(30, 80)}. Find its dimensions.`,
    () => `If f(x) = ${int(2, 5)}x + ${int(1, 9)} and g(x) = x^2, what is f(g(${int(1, 5)}))?`,
    () => `The sum of three consecutive integers is ${int(10, 90) * 3}. What are they?`,
    () => `A car uses ${int(5, 9)} liters per 100 km. How much fuel does it need for ${int(120, 900)} km, and what does it cost at ${(1 + rnd()).toFixed(2)} per liter?`,
    () => `How much should I tip on a $${int(20, 200)} bill at ${pick([15, 18, 20, 22])}%?`,
    () => `Find the ${int(10, 30)}th term of the arithmetic sequence ${int(1, 5)}, ${int(6, 9)}, ...`,
  ];
  for (const g of gen) for (let i = 0; i < 3; i++) add('math', 'en', casual(g()));
  const concepts = [
    'Prove that the square root of 2 is irrational.',
    'Prove by induction that 1 + 2 + ... + n = n(n+1)/2.',
    'Show that there are infinitely many prime numbers.',
    'Prove that the sum of two odd numbers is even.',
    'Prove that every bounded monotone sequence of real numbers converges.',
    'Prove that a group of prime order is cyclic.',
    'Explain what an eigenvector is, intuitively.',
    'What is a derivative, in simple terms? Give an example.',
    'Why is 0! equal to 1?',
    "Explain Bayes' theorem with a concrete example.",
    "What's the difference between permutations and combinations?",
    'Why does the harmonic series diverge?',
    'Explain the chain rule and when to use it.',
    'What is the intuition behind the central limit theorem?',
    'How do I know when to use integration by parts?',
    'Why is the determinant zero when the columns are linearly dependent?',
    'Explain modular arithmetic with clock examples.',
    'What does it mean for a function to be continuous but not differentiable?',
    'Can you explain the Monty Hall problem and why switching is better?',
    'How do you find the area under a curve?',
    'What is the Pythagorean theorem and how is it proved?',
    'Explain what a p-value actually measures.',
    "what's the expected value of a fair six-sided die roll",
    'Is 0.999... really equal to 1? Prove it.',
    'How many zeros are at the end of 100 factorial?',
  ];
  for (const c of concepts) add('math', 'en', c);
}

// ---------------------------------------------------------------- math (other languages)
const MATH_LANGS: ReadonlyArray<{ readonly lang: string; readonly gen: ReadonlyArray<() => string> }> = [
  {
    lang: 'es',
    gen: [
      () => `Resuelve la ecuación ${int(2, 9)}x + ${int(1, 20)} = ${int(21, 80)}`,
      () => `¿Cuál es la derivada de ${poly()}?`,
      () => `Un tren sale a las 8:00 a ${int(60, 100)} km/h y otro sale a las 9:00 a ${int(100, 140)} km/h. ¿A qué hora alcanza el segundo al primero?`,
      () => `Si lanzo dos dados, ¿qué probabilidad hay de que la suma sea ${int(2, 12)}?`,
      () => `María tiene ${int(10, 40)} manzanas y regala la tercera parte a su hermano. ¿Cuántas le quedan?`,
      () => `Calcula el área de un triángulo de base ${int(3, 20)} cm y altura ${int(3, 20)} cm.`,
      () => `Demuestra que la raíz cuadrada de ${pick([2, 3, 5])} es irracional.`,
      () => `¿Cuánto es el ${int(5, 40)}% de ${int(100, 900)}?`,
    ],
  },
  {
    lang: 'fr',
    gen: [
      () => `Résous l'équation ${int(2, 9)}x - ${int(1, 20)} = ${int(21, 80)}.`,
      () => `Calcule l'intégrale de ${poly()} entre 0 et 1.`,
      () => `Un rectangle a un périmètre de ${int(20, 80)} cm et sa longueur vaut le double de sa largeur. Quelles sont ses dimensions ?`,
      () => `Quelle est la probabilité d'obtenir exactement ${int(1, 3)} piles en lançant ${int(4, 8)} fois une pièce ?`,
      () => `Montre par récurrence que la somme des n premiers entiers impairs vaut n².`,
      () => `Un capital de ${int(1, 9) * 1000} € est placé à ${int(2, 6)} % par an. Combien vaut-il au bout de ${int(3, 15)} ans ?`,
      () => `Explique-moi ce qu'est une dérivée avec un exemple simple.`,
    ],
  },
  {
    lang: 'de',
    gen: [
      () => `Löse die Gleichung ${int(2, 9)}x + ${int(1, 20)} = ${int(21, 80)}.`,
      () => `Berechne die Ableitung von ${poly()}.`,
      () => `Ein Auto fährt ${int(100, 400)} km in ${int(2, 5)} Stunden. Wie hoch ist die Durchschnittsgeschwindigkeit?`,
      () => `Wie groß ist die Wahrscheinlichkeit, mit zwei Würfeln eine Summe von ${int(2, 12)} zu würfeln?`,
      () => `Beweise, dass es unendlich viele Primzahlen gibt.`,
      () => `Ein Kreis hat den Radius ${int(2, 12)} cm. Berechne Fläche und Umfang.`,
      () => `Wie viele Möglichkeiten gibt es, ${int(4, 9)} Bücher in einem Regal anzuordnen?`,
    ],
  },
  {
    lang: 'pt',
    gen: [
      () => `Resolva a equação ${int(2, 9)}x + ${int(1, 20)} = ${int(21, 80)}.`,
      () => `Qual é a integral de ${poly()}?`,
      () => `João tem ${int(20, 60)} reais e gasta ${int(2, 9)} reais por dia. Em quantos dias o dinheiro acaba?`,
      () => `Qual a probabilidade de tirar duas cartas de copas seguidas de um baralho de 52 cartas?`,
      () => `Calcule o volume de um cilindro com raio ${int(2, 9)} cm e altura ${int(5, 20)} cm.`,
      () => `Prove que a soma dos ângulos internos de um triângulo é 180 graus.`,
    ],
  },
  {
    lang: 'it',
    gen: [
      () => `Risolvi l'equazione ${int(2, 9)}x - ${int(1, 20)} = ${int(21, 80)}.`,
      () => `Calcola la derivata di ${poly()}.`,
      () => `Un negozio sconta un articolo del ${int(10, 50)}%. Se il prezzo originale era ${int(30, 300)} euro, quanto costa adesso?`,
      () => `Qual è la probabilità di ottenere almeno un 6 lanciando ${int(2, 6)} dadi?`,
      () => `Dimostra che la somma di due numeri pari è pari.`,
      () => `Trova l'area di un cerchio di raggio ${int(2, 15)} metri.`,
    ],
  },
  {
    lang: 'zh',
    gen: [
      () => `解方程 ${int(2, 9)}x + ${int(1, 20)} = ${int(21, 80)}`,
      () => `求函数 ${poly()} 的导数。`,
      () => `小明有${int(10, 50)}个苹果，给了小红${int(1, 9)}个，又买了${int(5, 20)}个，现在有多少个？`,
      () => `掷两个骰子，点数之和为${int(2, 12)}的概率是多少？`,
      () => `一个圆的半径是${int(2, 15)}厘米，求它的面积。`,
      () => `证明根号2是无理数。`,
      () => `一件衣服原价${int(100, 500)}元，打${int(6, 9)}折后多少钱？`,
      () => `甲乙两人同时从相距${int(10, 90)}千米的两地相向而行，甲每小时走${int(3, 6)}千米，乙每小时走${int(3, 6)}千米，几小时后相遇？`,
    ],
  },
  {
    lang: 'ja',
    gen: [
      () => `方程式 ${int(2, 9)}x + ${int(1, 20)} = ${int(21, 80)} を解いてください。`,
      () => `${poly()} を微分してください。`,
      () => `サイコロを2回振って、出た目の和が${int(2, 12)}になる確率は？`,
      () => `半径${int(2, 15)}cmの円の面積を求めてください。`,
      () => `りんごが${int(10, 40)}個あります。${int(2, 5)}人で同じ数ずつ分けると、1人何個で何個余りますか？`,
      () => `√2が無理数であることを証明してください。`,
    ],
  },
  {
    lang: 'ru',
    gen: [
      () => `Реши уравнение ${int(2, 9)}x + ${int(1, 20)} = ${int(21, 80)}.`,
      () => `Найди производную функции ${poly()}.`,
      () => `Поезд проехал ${int(100, 600)} км за ${int(2, 8)} часов. Какова его средняя скорость?`,
      () => `Какова вероятность вытянуть туза из колоды в 36 карт?`,
      () => `Докажи, что простых чисел бесконечно много.`,
      () => `Найди площадь треугольника со сторонами ${int(3, 6)}, ${int(4, 8)} и ${int(5, 10)}.`,
    ],
  },
  {
    lang: 'ko',
    gen: [
      () => `방정식 ${int(2, 9)}x + ${int(1, 20)} = ${int(21, 80)}을 풀어 주세요.`,
      () => `${poly()}의 도함수를 구해 주세요.`,
      () => `주사위 두 개를 던졌을 때 합이 ${int(2, 12)}일 확률은?`,
      () => `반지름이 ${int(2, 15)}cm인 원의 넓이를 구하세요.`,
    ],
  },
  {
    lang: 'ar',
    gen: [
      () => `حل المعادلة ${int(2, 9)}x + ${int(1, 20)} = ${int(21, 80)}`,
      () => `ما هو احتمال الحصول على مجموع ${int(2, 12)} عند رمي نردين؟`,
      () => `احسب مساحة دائرة نصف قطرها ${int(2, 15)} سم.`,
    ],
  },
  {
    lang: 'hi',
    gen: [
      () => `समीकरण ${int(2, 9)}x + ${int(1, 20)} = ${int(21, 80)} को हल करें।`,
      () => `एक दुकानदार ${int(100, 900)} रुपये की वस्तु पर ${int(5, 30)}% छूट देता है। वस्तु का नया मूल्य क्या है?`,
      () => `${int(2, 15)} सेमी त्रिज्या वाले वृत्त का क्षेत्रफल निकालिए।`,
    ],
  },
  {
    lang: 'nl',
    gen: [() => `Los de vergelijking ${int(2, 9)}x + ${int(1, 20)} = ${int(21, 80)} op.`, () => `Wat is de kans om met twee dobbelstenen ${int(2, 12)} te gooien?`],
  },
  {
    lang: 'tr',
    gen: [() => `${int(2, 9)}x + ${int(1, 20)} = ${int(21, 80)} denklemini çöz.`, () => `Yarıçapı ${int(2, 15)} cm olan bir dairenin alanı nedir?`],
  },
];
function mathOther(): void {
  for (const ml of MATH_LANGS) for (const g of ml.gen) for (let i = 0; i < 2; i++) add('math', ml.lang, g());
}

// ---------------------------------------------------------------- general (English)
const GENERAL_EN = [
  'Write a short poem about {topic}.',
  'Write a haiku about {topic}.',
  'Tell me a bedtime story about {topic}.',
  'Give me {n} tips for {activity}.',
  'What are some good ways to get better at {activity}?',
  "What's the capital of {country}?",
  'What language do people speak in {country}?',
  'What is the best time of year to visit {country}?',
  'Plan a {n}-day trip to {city} on a budget.',
  'Summarize the plot of {book}.',
  'Who wrote {book}, and what is it about?',
  'Draft a polite email to my {person} about {issue}.',
  'Help me write a message to my {person} about {issue}.',
  "Explain {science} like I'm five.",
  'How does {science} work?',
  'Give me a recipe for {dish}.',
  'What can I cook with {ingredients}?',
  'Compare {a} and {b}: which should I choose?',
  'What are the pros and cons of {choice}?',
  'Suggest {n} names for {naming}.',
  'What happened during {history}?',
  'Why did {history} matter?',
];
const GEN_SLOTS: Record<string, readonly string[]> = {
  topic: ['autumn leaves', 'the ocean at night', 'my grumpy cat', 'mathematics', 'prime numbers', 'a programmer debugging at 3am', 'coffee', 'moving to a new city', 'the number zero', 'an old lighthouse', 'friendship', 'learning to code', 'the first day of spring'],
  n: ['3', '5', '7', '10', 'a few'],
  activity: ['sleeping better', 'public speaking', 'saving money', 'learning a new language', 'running a first marathon', 'staying focused while working from home', 'taking better photos with my phone', 'negotiating a salary', 'growing tomatoes on a balcony', 'studying for exams', 'being a better listener'],
  country: ['Portugal', 'Japan', 'Kenya', 'Canada', 'Peru', 'Vietnam', 'Norway', 'Morocco', 'New Zealand', 'Argentina'],
  city: ['Lisbon', 'Tokyo', 'Mexico City', 'Prague', 'Seoul', 'Istanbul', 'Cape Town', 'Montreal'],
  book: ['Pride and Prejudice', 'One Hundred Years of Solitude', 'The Great Gatsby', 'Moby-Dick', 'Don Quixote', 'The Hobbit', 'Beloved', 'Crime and Punishment'],
  person: ['landlord', 'manager', 'neighbour', "child's teacher", 'client', 'team'],
  issue: ['a broken heater', 'taking Friday off', 'noise late at night', 'a missed deadline', 'a late invoice payment', 'moving our meeting to next week'],
  science: ['photosynthesis', 'a black hole', 'inflation', 'how vaccines train the immune system', 'why the sky is blue', 'plate tectonics', 'how a refrigerator keeps food cold', 'the greenhouse effect', 'how noise-cancelling headphones work', 'compound interest'],
  dish: ['a vegetarian lasagna', 'banana bread', 'pad thai', 'a quick weeknight curry', 'gluten-free pancakes', 'shakshuka'],
  ingredients: ['rice, eggs and spinach', 'chickpeas, lemon and garlic', 'leftover chicken and tortillas'],
  a: ['renting', 'an electric car', 'a Kindle', 'a standing desk', 'a gym membership'],
  b: ['buying a home', 'a hybrid', 'paper books', 'a regular desk', 'running outside'],
  choice: ['freelancing', 'moving abroad for work', 'getting a dog', 'a four-day work week', 'homeschooling'],
  naming: ['a bakery', 'my new puppy', 'a podcast about gardening', 'a fantasy kingdom', 'a hiking club'],
  history: ['the fall of the Berlin Wall', 'the French Revolution', 'the Apollo 11 mission', 'the Meiji Restoration', 'the invention of the printing press', 'the history of calculus'],
};
const GENERAL_FIXED = [
  'hi',
  'hello! how are you today?',
  'thanks, that was really helpful',
  'tell me a joke',
  'what can you help me with?',
  'good morning',
  'Can you recommend a good sci-fi book?',
  "I'm feeling stressed about my exams, any advice?",
  'What should I get my dad for his 60th birthday?',
  'Is it safe to eat eggs past their expiration date?',
  'How long should I boil an egg for a runny yolk?',
  'What is the difference between weather and climate?',
  'Who was Ada Lovelace?',
  'Who was Leonhard Euler and why is he famous?',
  'What is the best programming language to learn first for a career change?',
  'Which laptop is better for a university student, a MacBook Air or a ThinkPad?',
  'Write a cover letter for a junior data analyst job.',
  'Write a LinkedIn post announcing that I got a new job as a software engineer.',
  'What are the symptoms of burnout?',
  'How many hours of sleep does a teenager need?',
  'Make my sentence sound more professional: hey, can u send me the report asap',
  'Proofread this: Their going to the park tomorow, weather permitting.',
  'Can you rewrite this paragraph in a friendlier tone?',
  'What is the meaning of the word "serendipity"?',
  'What is the origin of the phrase "break the ice"?',
  'Write a toast for my sister\'s wedding.',
  "What's a good workout routine for beginners with no equipment?",
  'How do I get red wine out of a carpet?',
  'What are the rules of chess castling?',
  'Explain the offside rule in football.',
  'Give me a motivational quote for Monday morning.',
  'What do you think about pineapple on pizza?',
  'How do I politely decline a wedding invitation?',
  'Write a product description for a handmade ceramic mug.',
  'Brainstorm themes for a 10-year-old\'s birthday party.',
  'What are the main causes of World War I?',
  'Describe the water cycle.',
  'Why do cats purr?',
  'How does the stock market work?',
  'What is the population of Brazil?',
  'Which planets have rings?',
  'How far is the Moon from Earth?',
  'Write a limerick about a lazy dog.',
  'Create a weekly meal plan for a family of four.',
  'What are the benefits of meditation?',
  'Write a two-sentence horror story.',
  'Tell me a fun fact about octopuses.',
  'What is the plot of the movie Inception?',
  'Help me prepare for a job interview at a bank.',
  'How do I ask my boss for a raise?',
  'What should I pack for a week of hiking in Scotland?',
  'Why is the Mona Lisa so famous?',
  'Write a short speech for a retirement party.',
  'Recommend some podcasts about history.',
  'What is stoicism?',
  'How do tides work?',
  "I can't decide between two job offers, can you help me think it through?",
  'Write a poem for my grandmother\'s 90th birthday.',
  'Write a story about a robot who learns to paint.',
  'Write a funny song about mathematicians.',
  'What are good gifts for someone who loves programming?',
  'Explain what a software engineer does all day, for a career fair.',
  'Write a blog post intro about why I love learning languages.',
  'Which countries use the euro?',
  "What's the difference between a latte and a cappuccino?",
  'How do I care for a fiddle leaf fig?',
  'Is coffee bad for you?',
  'What is the tallest mountain in Africa?',
  'Give me ideas for a first date in winter.',
  'Write a thank-you note to a teacher.',
  'What is the difference between a crocodile and an alligator?',
  'What are the main ideas of the book Sapiens?',
  'How do I start journaling?',
  'Describe the perfect autumn day in three sentences.',
  'Can you explain the rules of cricket simply?',
];
function generalEnglish(): void {
  const slots: Record<string, () => string> = {};
  for (const [k, vs] of Object.entries(GEN_SLOTS)) slots[k] = () => pick(vs);
  for (const t of GENERAL_EN) for (let i = 0; i < 5; i++) add('general', 'en', casual(fill(t, slots)));
  for (const g of GENERAL_FIXED) add('general', 'en', g);
  const proseTemplates = [
    'Summarize this in three bullet points:\n\n{p}',
    '{p}\n\nCan you make this shorter and clearer?',
    'What do you think of this paragraph? Be honest.\n\n{p}',
    'Rewrite this for a newsletter:\n{p}',
    '{p}\n\nWhat should I do?',
    'Give this text a title and a one-sentence summary:\n\n{p}',
  ];
  for (const t of proseTemplates) for (let i = 0; i < 4; i++) add('general', 'en', fill(t, { p: () => pick(EN_PROSE) }));
}

// ---------------------------------------------------------------- multilingual
/** Everyday requests written in other languages (no code, no mathematics). */
const FOREIGN_GENERAL: Record<string, readonly string[]> = {
  es: [
    '¿Cuál es la capital de Australia?', 'Escríbeme un poema sobre el mar.', 'Dame cinco consejos para dormir mejor.', '¿Qué me recomiendas visitar en Sevilla en dos días?', 'Escribe un correo a mi jefe pidiendo el viernes libre.', '¿Por qué el cielo es azul?', 'Cuéntame un chiste.', 'Hola, ¿cómo estás?', '¿Qué puedo cocinar con arroz, huevos y espinacas?', 'Resume la historia de la Revolución francesa.', 'Necesito ideas para el cumpleaños de mi hija de ocho años.', '¿Cuál es la diferencia entre un virus y una bacteria?', 'Recomiéndame una novela de ciencia ficción.', 'Estoy nervioso por una entrevista de trabajo, ¿algún consejo?', 'Escribe una historia corta sobre un dragón que tiene miedo a volar.', 'gracias, me ayudó mucho',
  ],
  fr: [
    'Quelle est la capitale du Canada ?', 'Écris-moi un poème sur l\'automne.', 'Donne-moi des idées de sorties pour ce week-end à Lyon.', 'Comment fonctionne la photosynthèse ?', 'Peux-tu m\'aider à écrire une lettre de motivation pour un poste de vendeur ?', 'Raconte-moi une blague.', 'Bonjour, tu vas bien ?', 'Quels sont les bienfaits de la méditation ?', 'Résume le livre Le Petit Prince.', 'Que faire à Paris quand il pleut ?', 'J\'ai du mal à me concentrer au travail, des conseils ?', 'Quelle est la différence entre la météo et le climat ?', 'Propose-moi un menu pour un dîner entre amis.', 'merci beaucoup pour ton aide',
  ],
  de: [
    'Was ist die Hauptstadt von Kanada?', 'Schreib mir ein Gedicht über den Winter.', 'Gib mir fünf Tipps, um besser zu schlafen.', 'Wie funktioniert ein Kühlschrank?', 'Hilf mir, eine E-Mail an meinen Vermieter wegen der kaputten Heizung zu schreiben.', 'Erzähl mir einen Witz.', 'Hallo, wie geht es dir?', 'Was kann ich am Wochenende in Hamburg unternehmen?', 'Fasse die Geschichte der Berliner Mauer kurz zusammen.', 'Welche Bücher sollte man unbedingt gelesen haben?', 'Ich bin vor meiner Prüfung sehr nervös, was soll ich tun?', 'Warum schnurren Katzen?', 'Erkläre mir bitte, wie Photosynthese funktioniert.', 'danke, das war hilfreich',
  ],
  pt: [
    'Qual é a capital da Austrália?', 'Escreva um poema sobre saudade.', 'Me dê dicas para economizar dinheiro.', 'O que fazer em Lisboa em três dias?', 'Como funciona o sistema imunológico?', 'Me conta uma piada.', 'Oi, tudo bem?', 'Escreva uma mensagem de aniversário para minha avó.', 'Qual a diferença entre café expresso e coado?', 'Resuma a história do Brasil colonial.', 'Estou ansioso com a mudança de emprego, algum conselho?', 'Qual é a melhor época para visitar o Nordeste?', 'obrigado pela ajuda!',
  ],
  it: [
    'Qual è la capitale del Giappone?', 'Scrivimi una poesia sulla primavera.', 'Dammi qualche consiglio per dormire meglio.', 'Cosa vedere a Roma in due giorni?', 'Come funziona un vaccino?', 'Raccontami una barzelletta.', 'Ciao, come stai?', 'Scrivi una lettera di presentazione per un lavoro in un hotel.', 'Riassumi la trama dei Promessi Sposi.', 'Che cosa posso cucinare con zucchine e pasta?', 'Perché il cielo è blu?', 'grazie mille!',
  ],
  zh: [
    '中国的首都是哪里？', '写一首关于秋天的诗。', '给我一些提高睡眠质量的建议。', '周末去上海玩，有什么推荐的地方？', '为什么天空是蓝色的？', '讲个笑话吧。', '你好，你是谁？', '帮我写一封请假邮件给老板。', '介绍一下唐朝的历史。', '怎么缓解工作压力？', '推荐几本好看的小说。', '猫为什么喜欢晒太阳？', '谢谢你的帮助！',
  ],
  ja: [
    '日本で一番高い山は何ですか？', '春についての俳句を作ってください。', 'よく眠るためのコツを教えてください。', '京都でおすすめの観光地はどこですか？', 'なぜ空は青いのですか？', '面白い話をしてください。', 'こんにちは、元気ですか？', '上司に休暇をお願いするメールを書いてください。', '江戸時代について簡単に説明してください。', '夕飯の献立を考えてください。', 'ありがとうございました！',
  ],
  ru: [
    'Какая столица у Канады?', 'Напиши стихотворение о зиме.', 'Дай несколько советов, как лучше спать.', 'Что посмотреть в Санкт-Петербурге за два дня?', 'Почему небо голубое?', 'Расскажи анекдот.', 'Привет, как дела?', 'Помоги написать письмо начальнику об отпуске.', 'Кратко расскажи историю Древнего Рима.', 'Посоветуй интересную книгу.', 'спасибо большое!',
  ],
  ar: [
    'ما هي عاصمة اليابان؟', 'اكتب لي قصيدة عن البحر.', 'أعطني نصائح لتحسين النوم.', 'لماذا السماء زرقاء؟', 'مرحبا، كيف حالك؟', 'ساعدني في كتابة رسالة إلى مديري لطلب إجازة.', 'ما هي فوائد المشي يوميًا؟', 'احكِ لي قصة قصيرة عن قطة شجاعة.', 'شكرا جزيلا',
  ],
  hi: [
    'भारत की राजधानी क्या है?', 'बारिश पर एक छोटी कविता लिखो।', 'अच्छी नींद के लिए कुछ सुझाव दो।', 'आसमान नीला क्यों होता है?', 'नमस्ते, आप कैसे हैं?', 'मेरे बॉस को छुट्टी के लिए एक ईमेल लिखने में मदद करो।', 'ताजमहल का इतिहास बताइए।', 'धन्यवाद!',
  ],
  ko: [
    '한국의 수도는 어디인가요?', '가을에 관한 시를 써 주세요.', '잠을 잘 자는 방법을 알려주세요.', '서울에서 가볼 만한 곳을 추천해 주세요.', '하늘은 왜 파란가요?', '안녕하세요, 잘 지내세요?', '상사에게 휴가를 요청하는 이메일을 써 주세요.', '감사합니다!',
  ],
  nl: ['Wat is de hoofdstad van Australië?', 'Schrijf een gedichtje over de zee.', 'Geef me tips om beter te slapen.', 'Hoe gaat het met je?', 'Wat kan ik doen in Amsterdam als het regent?'],
  sv: ['Vad är huvudstaden i Norge?', 'Skriv en dikt om vintern.', 'Hej, hur mår du?', 'Ge mig tips för att sova bättre.'],
  pl: ['Jaka jest stolica Kanady?', 'Napisz wiersz o jesieni.', 'Cześć, jak się masz?', 'Daj mi kilka rad, jak lepiej spać.'],
  tr: ['Japonya\'nın başkenti neresidir?', 'Deniz hakkında bir şiir yaz.', 'Merhaba, nasılsın?', 'Daha iyi uyumak için önerilerin var mı?'],
  vi: ['Thủ đô của Nhật Bản là gì?', 'Viết cho tôi một bài thơ về mùa thu.', 'Xin chào, bạn khỏe không?', 'Cho tôi vài lời khuyên để ngủ ngon hơn.'],
  id: ['Apa ibu kota Australia?', 'Tuliskan puisi tentang hujan.', 'Halo, apa kabar?', 'Berikan tips agar tidur lebih nyenyak.'],
  uk: ['Яка столиця Канади?', 'Напиши вірш про весну.', 'Привіт, як справи?'],
  el: ['Ποια είναι η πρωτεύουσα της Ιαπωνίας;', 'Γράψε ένα ποίημα για τη θάλασσα.'],
  he: ['מהי בירת יפן?', 'כתוב שיר על הים.'],
  th: ['เมืองหลวงของญี่ปุ่นคืออะไร', 'ช่วยเขียนกลอนเกี่ยวกับทะเลหน่อย'],
};
const PHRASES = ['good morning', 'where is the train station?', 'I would like a coffee, please', 'thank you very much', 'how much does this cost?', 'I am allergic to peanuts', 'nice to meet you', 'could you speak more slowly?', 'happy birthday', 'the meeting is postponed until Monday'];
const HUMAN_LANGS = ['French', 'Spanish', 'German', 'Japanese', 'Italian', 'Portuguese', 'Korean', 'Mandarin', 'Russian', 'Arabic', 'Hindi', 'Dutch'];
const FOREIGN_PHRASES = ['je ne sais quoi', 'carpe diem', 'Schadenfreude', 'saudade', 'wabi-sabi', 'dolce far niente', 'hygge', 'ojalá', 'とりあえず', '加油', 'na zdrowie', 'mañana'];
function multilingual(): void {
  for (const [lang, xs] of Object.entries(FOREIGN_GENERAL)) for (const x of xs) add('multilingual', lang, x);
  const trTemplates = [
    'Translate "{phrase}" into {L}.',
    'How do you say "{phrase}" in {L}?',
    "What's the {L} for '{phrase}'?",
    'Can you translate this sentence to {L}: {phrase}',
    'translate to {L}: {phrase}',
    'How would a native speaker say "{phrase}" in {L}, formally and informally?',
    'Translate this paragraph into {L}:\n\n{p}',
    'Please translate the following email into {L}, keeping the tone polite:\n{p}',
  ];
  for (const t of trTemplates) {
    for (let i = 0; i < 4; i++) add('multilingual', 'en', casual(fill(t, { phrase: () => pick(PHRASES), L: () => pick(HUMAN_LANGS), p: () => pick(EN_PROSE) })));
  }
  const meanTemplates = ['What does "{f}" mean?', 'What does {f} mean in English?', 'Translate "{f}" to English and explain when people use it.', 'is there an english word for {f}?'];
  for (const t of meanTemplates) for (let i = 0; i < 3; i++) add('multilingual', 'en', fill(t, { f: () => pick(FOREIGN_PHRASES) }));
  const foreignLong = [
    'Translate this to English:\n\n{t}',
    'Can you summarize this {name} article in English?\n\n{t}',
    '{t}',
    'What is this text about?\n{t}',
  ];
  for (const t of foreignLong) {
    for (let i = 0; i < 6; i++) {
      const p = pick(FOREIGN_PROSE);
      add('multilingual', t === '{t}' ? p.lang : 'en+' + p.lang, fill(t, { t: () => p.text, name: () => p.name }));
    }
  }
  const foreignAsk: Record<string, readonly string[]> = {
    es: ['Resume este texto en pocas palabras:\n\n{t}', 'Traduce este texto al inglés:\n{t}'],
    fr: ['Résume ce texte en trois phrases :\n\n{t}', 'Traduis ce texte en anglais :\n{t}'],
    de: ['Fasse diesen Text zusammen:\n\n{t}', 'Übersetze diesen Text ins Englische:\n{t}'],
    zh: ['请总结一下这段文字：\n{t}', '把这段话翻译成英文：\n{t}'],
    ja: ['この文章を要約してください。\n{t}'],
    ru: ['Перескажи кратко этот текст:\n{t}'],
    pt: ['Resuma este texto:\n{t}'],
    it: ['Riassumi questo testo:\n{t}'],
  };
  for (const [lang, ts] of Object.entries(foreignAsk)) {
    const own = FOREIGN_PROSE.find((p) => p.lang === lang);
    for (const t of ts) add('multilingual', lang, fill(t, { t: () => own?.text ?? pick(FOREIGN_PROSE).text }));
  }
  // Requests to translate into English from other languages, asked in those languages.
  const askTranslate = [
    ['es', '¿Cómo se dice "{w}" en inglés?', ['mariposa', 'me alegro de verte', 'sobremesa']],
    ['fr', 'Comment dit-on « {w} » en anglais ?', ['bon appétit', 'la rentrée', 'un coup de foudre']],
    ['de', 'Wie sagt man „{w}" auf Englisch?', ['Feierabend', 'Fernweh', 'Ohrwurm']],
    ['pt', 'Como se diz "{w}" em inglês?', ['cafuné', 'saudade', 'desenrascanço']],
    ['zh', '"{w}"用英语怎么说？', ['马马虎虎', '加油', '不好意思']],
    ['ja', '「{w}」は英語で何と言いますか？', ['いただきます', 'お疲れ様です', 'もったいない']],
    ['ru', 'Как сказать «{w}» по-английски?', ['тоска', 'авось', 'пошлость']],
    ['it', 'Come si dice "{w}" in inglese?', ['abbiocco', 'magari', 'in bocca al lupo']],
  ] as const;
  for (const [lang, t, ws] of askTranslate) for (const w of ws) add('multilingual', lang, t.replace('{w}', w));
}

// ---------------------------------------------------------------- multi-turn
type Turn = readonly [string, string];
const CONTEXTS: Record<'code' | 'math' | 'general' | 'multilingual', readonly Turn[]> = {
  code: [
    ['Write a Python function that checks whether a string is a palindrome.', 'Here is one:\n\n```python\ndef is_palindrome(s: str) -> bool:\n    s = "".join(c.lower() for c in s if c.isalnum())\n    return s == s[::-1]\n```'],
    ['Why does my React component render twice?', 'In development, React.StrictMode mounts components twice to surface side effects. It does not happen in production builds.'],
    ['How do I list the files changed in my last git commit?', 'Use `git show --name-only HEAD` or `git diff --name-only HEAD~1 HEAD`.'],
    ['Write a SQL query for the top 3 products by revenue.', 'SELECT product_id, SUM(price * qty) AS revenue FROM order_items GROUP BY product_id ORDER BY revenue DESC LIMIT 3;'],
    ['My Express server returns 404 for every route under /api, here is app.js: app.use("/api", router)', 'Check that the router is mounted after it defines its routes and that paths inside it do not repeat /api.'],
    ['Write a bash script that backs up /etc every night.', '#!/bin/bash\ntar czf /backup/etc-$(date +%F).tar.gz /etc'],
  ],
  math: [
    ['Solve 2x + 6 = 14.', 'Subtract 6 from both sides: 2x = 8, so x = 4.'],
    ['What is the derivative of x^3 sin(x)?', 'By the product rule: 3x^2 sin(x) + x^3 cos(x).'],
    ['If I roll two dice, what is the probability the sum is 7?', 'There are 6 favourable outcomes out of 36, so the probability is 1/6.'],
    ['A loan of $10,000 at 5% compounded yearly: how much after 3 years?', '10000 × 1.05^3 = $11,576.25.'],
    ['Prove that the sum of the first n odd numbers is n squared.', 'By induction: 1 = 1², and n² + (2n + 1) = (n + 1)².'],
    ['Find the area of a triangle with sides 5, 12 and 13.', 'It is a right triangle (5² + 12² = 13²), so the area is 5 × 12 / 2 = 30.'],
  ],
  general: [
    ['Give me some ideas for a birthday party for my dad.', 'A backyard barbecue, a surprise dinner with old friends, or a day trip to somewhere he loved as a kid.'],
    ['Write a short poem about autumn.', 'Leaves let go in amber light,\nthe evening folds the day in two...'],
    ['What should I pack for a weekend in London?', 'Layers, a light rain jacket, comfortable walking shoes and an umbrella.'],
    ['Explain why the sky is blue.', 'Sunlight scatters off air molecules, and shorter blue wavelengths scatter the most, so the sky looks blue.'],
  ],
  multilingual: [
    ['¿Qué me recomiendas visitar en Madrid?', 'El Museo del Prado, el Parque del Retiro y el Palacio Real son imprescindibles.'],
    ['Écris-moi un petit poème sur la mer.', 'La mer murmure au creux du soir, / ses vagues bercent nos espoirs...'],
    ['东京有什么好玩的地方？', '可以去浅草寺、涩谷、上野公园，还有筑地场外市场。'],
    ['Wie kann ich besser schlafen?', 'Geh jeden Tag zur gleichen Zeit ins Bett und verzichte abends auf Bildschirme.'],
  ],
};
const FOLLOW_UPS: Record<string, Record<string, readonly string[]>> = {
  code: {
    code: ['Can you add error handling to it?', 'now write tests for it', 'Make it work with unicode too.', 'What is the time complexity of that?', 'Can you rewrite it in Go?', 'It fails with a TypeError when the input is None, fix it.'],
    general: ['Thanks! Unrelated, but what is a good name for a golden retriever?', 'great, that worked. have a nice evening!'],
    multilingual: ['¿Me lo explicas en español?', 'Peux-tu traduire ton explication en français ?'],
    math: ['Unrelated: what is the integral of 1/x?'],
  },
  math: {
    math: ['And what if it were 3x instead of 2x?', 'Can you explain the second step again?', 'what about the sum being 8?', 'How long until it doubles?', 'Now do it for n = 10.'],
    general: ['Thanks! Can you recommend a good book about the history of numbers?', 'Cool, thanks. What should I have for dinner tonight?'],
    multilingual: ['¿Puedes explicarlo en español, por favor?'],
    code: ['Can you write a Python function that does this calculation?', 'Show me how to compute that in JavaScript.'],
  },
  general: {
    general: ['Make it shorter.', 'Can you give me two more ideas?', 'Make it rhyme better.', 'what about if it rains?'],
    multilingual: ['Translate that into Italian.', 'Can you write it in Spanish instead?'],
    code: ['Now write a Python script that prints it.'],
    math: ['If the party costs $450 for 18 people, how much is that per person with a 15% tip?'],
  },
  multilingual: {
    multilingual: ['¿Y si llueve?', 'Merci ! Et pour les enfants ?', '那晚上有什么推荐吗？', 'Danke! Und was ist mit Kaffee am Abend?', 'Gracias, ¿algo más barato?'],
    general: ['Thanks! Can you answer in English from now on? What else should I see?'],
    code: ['Escribe un script en Python que muestre esa lista de lugares.'],
    math: ['Si el viaje cuesta 1200 euros para 4 personas y pagamos un 10% de depósito, ¿cuánto paga cada uno de depósito?'],
  },
};
/** Follow-ups that say too little by themselves: their lane is the conversation's. */
const VAGUE_FOLLOW_UPS = [
  'Can you make it shorter?',
  'Explain it step by step.',
  'why?',
  'Can you give me another example?',
  'What about the second one?',
  'Make it better.',
  'Can you do the same for the other case?',
  'ok, and then?',
  'Could you double-check that?',
  'Add more detail please.',
];
function multiTurn(): void {
  for (const [ctxLane, turns] of Object.entries(CONTEXTS)) {
    for (const text of VAGUE_FOLLOW_UPS) {
      const [u, a] = pick(turns);
      add(
        ctxLane as LaneRecord['lane'],
        'multi',
        [
          { role: 'user', content: u },
          { role: 'assistant', content: a },
          { role: 'user', content: text },
        ],
        { vague: true },
      );
    }
    const ups = FOLLOW_UPS[ctxLane] ?? {};
    for (const [lane, texts] of Object.entries(ups)) {
      for (const text of texts) {
        const [u, a] = pick(turns);
        add(lane as LaneRecord['lane'], 'multi', [
          { role: 'user', content: u },
          { role: 'assistant', content: a },
          { role: 'user', content: text },
        ]);
      }
    }
  }
}

// ---------------------------------------------------------------- long requests (over 1,000 characters)
function longRequests(): void {
  const pickN = <T>(xs: readonly T[], count: number): T[] => Array.from({ length: count }, () => pick(xs));
  for (let i = 0; i < 10; i++) {
    const files = pickN(SNIPPETS, int(3, 5)).map((sn, k) => `--- file ${k + 1} (${sn.lang}) ---\n${sn.code}`);
    add('code', 'en', `${pick(['Here is my project, the tests fail and I cannot see why.', 'Please review these files before I open a pull request.', 'These are the relevant files.'])}\n\n${files.join('\n\n')}\n\n${pick(TRACES)}\n\n${pick(['What is wrong?', 'Any idea?', 'How do I fix it?'])}`);
  }
  const problems = () => {
    const all: string[] = [];
    for (let k = 0; k < int(4, 7); k++) all.push(pick([
      `A store sells pens at $${int(1, 5)} each and notebooks at $${int(3, 9)} each. Ana buys ${int(2, 9)} pens and ${int(2, 6)} notebooks and pays with a $${int(50, 100)} bill. How much change does she get?`,
      `Solve ${int(2, 9)}x - ${int(1, 9)} = ${int(10, 50)} and check your answer.`,
      `A cyclist rides ${int(10, 40)} km at ${int(12, 25)} km/h and then ${int(5, 30)} km at ${int(8, 20)} km/h. What is the average speed for the whole trip?`,
      `Find the area of a rectangle whose length is ${int(3, 12)} cm longer than its width if the perimeter is ${int(40, 90)} cm.`,
      `What is the probability of drawing ${int(2, 3)} aces in a row from a standard deck without replacement?`,
      `Differentiate ${poly()} and find where the derivative is zero.`,
    ]));
    return all.map((t, k) => `${k + 1}) ${t}`).join('\n\n');
  };
  for (let i = 0; i < 10; i++) add('math', 'en', `${pick(['Here is my homework, please solve each problem and show the steps.', 'Can you check my worksheet? I need the answers with explanations.', 'Practice problems for my exam:'])}\n\n${problems()}`);
  for (let i = 0; i < 10; i++) {
    const ps = [pick(EN_PROSE), pick(EN_PROSE), pick(EN_PROSE)];
    add('general', 'en', `${pick(['Summarize this report for my manager:', 'Turn these notes into a short blog post:', 'What are the main points here?'])}\n\n${ps.join('\n\n')}`);
  }
  for (let i = 0; i < 10; i++) {
    const p = pick(FOREIGN_PROSE);
    const ask: Record<string, string> = { es: 'Resume estos textos:', fr: 'Résume ces textes :', de: 'Fasse diese Texte zusammen:', pt: 'Resuma estes textos:', it: 'Riassumi questi testi:', zh: '请总结下面的文章：', ja: '次の文章を要約してください。', ru: 'Перескажи эти тексты:', ko: '다음 글을 요약해 주세요.', ar: 'لخص هذه النصوص:', hi: 'इन लेखों का सारांश दीजिए:', nl: 'Vat deze teksten samen:' };
    add('multilingual', p.lang, `${ask[p.lang] ?? ''}\n\n${p.text}\n\n${p.text.split(/(?<=[.。])/).reverse().join(' ')}`);
  }
}

// ---------------------------------------------------------------- structural lanes
function structural(): void {
  // Any text becomes vision with an image, or agent with a tool: the structural rules come first.
  const texts = records.filter((r) => r.messages.length === 1).map((r) => r.messages[0]?.content ?? '');
  for (let i = 0; i < texts.length; i += 25) {
    add('vision', 'any', texts[i] as string, { image: true });
    add('agent', 'any', texts[i + 12] ?? (texts[i] as string), { tools: true });
  }
  const visionTexts = ["What's in this picture?", 'Solve the math problem in this photo.', 'Fix the code in this screenshot.', '¿Qué dice este cartel?', 'Describe this chart.', 'この画像を説明してください。', 'Is this mushroom edible?', 'Translate the menu in this photo to English.'];
  for (const t of visionTexts) add('vision', 'en', t, { image: true });
  const agentTexts = ["What's the weather in Paris tomorrow?", 'Book a table for two at 7pm.', 'Write a Python function to parse dates.', 'Solve 3x + 5 = 20.', 'Busca vuelos baratos a Roma.', 'Look up the latest order for customer 42.', 'Translate "hello" to German.', 'Summarize my unread emails.'];
  for (const t of agentTexts) add('agent', 'en', t, { tools: true });
  add('agent', 'en', [
    { role: 'user', content: 'What is the weather in Berlin?' },
    { role: 'assistant', content: '', toolCall: 'get_weather' },
    { role: 'tool', content: '{"temp_c": 4, "sky": "overcast"}' },
    { role: 'user', content: 'And should I bring an umbrella?' },
  ]);
}

function fixed(): void {
  for (const [lang, xs] of Object.entries(CODE_CONCEPTS)) for (const x of xs) add('code', lang, x);
  for (const x of MATH_WORDS) add('math', 'en', x);
  for (const x of GENERAL_MORE) add('general', 'en', x);
}

codeEnglish();
codeOther();
fixed();
mathEnglish();
mathOther();
generalEnglish();
multilingual();
multiTurn();
longRequests();
structural();
// After the others, so that their ids, splits and the structural rules' sample stay as they were.
for (const c of everydayCases()) add(c.lane, c.lang, c.text);
for (const text of DATA_FRAGMENTS) {
  const [u, a] = CONTEXTS.code[3] as Turn;
  add('code', 'multi', [{ role: 'user', content: u }, { role: 'assistant', content: a }, { role: 'user', content: text }], { vague: true });
}
// Appended last for the same reason: the ids before them stay as they were.
for (const c of session29Cases()) add(c.lane, c.lang, c.text);
for (const h of HAND_CASES) records.push({ ...h, source: 'hand', split: splitOf(h.id) });

const ids = new Set<string>();
for (const r of records) {
  if (ids.has(r.id)) throw new Error(`duplicate id ${r.id}`);
  ids.add(r.id);
}
const out = fileURLToPath(new URL('../../src/inference/routing/lanes/data/lanes.jsonl', import.meta.url));
writeFileSync(out, records.map((r) => JSON.stringify(r)).join('\n') + '\n');
const count = (f: (r: LaneRecord) => boolean) => records.filter(f).length;
console.log(`${records.length} records -> ${out}`);
for (const lane of ['vision', 'agent', 'code', 'math', 'multilingual', 'general'] as const) {
  console.log(`${lane.padEnd(13)} ${String(count((r) => r.lane === lane)).padStart(4)}  (test ${count((r) => r.lane === lane && r.split === 'test')}, non-English ${count((r) => r.lane === lane && r.lang !== 'en')})`);
}
