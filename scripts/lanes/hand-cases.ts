/**
 * Hand-written lane cases, most of them borderline: they pin down the precedence (code, then math,
 * then multilingual) and the requests that mention a topic without asking for it.
 */
import type { LaneRecord } from '../../src/inference/routing/lanes/data-set.ts';

type Hand = Omit<LaneRecord, 'source' | 'split'>;
const out: Hand[] = [];
const n = new Map<string, number>();
function h(lane: LaneRecord['lane'], lang: string, text: string, note?: string): void {
  const k = (n.get(lane) ?? 0) + 1;
  n.set(lane, k);
  out.push({ id: `hand-${lane}-${String(k).padStart(3, '0')}`, lane, lang, messages: [{ role: 'user', content: text }], ...(note ? { note } : {}) });
}

// code: explaining, translating or testing program code is code, whatever the language of the request.
h('code', 'en', 'explain this regex: ^\\s*#.*$', 'regex explanation');
h('code', 'en', 'what does s/foo/bar/g do in sed?');
h('code', 'en', 'translate this Python into idiomatic Rust: [x*x for x in xs if x % 2 == 0]', 'translation of program code is code');
h('code', 'en', 'Convert this JavaScript to TypeScript: function add(a, b) { return a + b }');
h('code', 'es', 'Arregla este código Python, por favor: for i in range(10) print(i)', 'Spanish request about Python: code beats multilingual');
h('code', 'fr', "Corrige cette requête : SELECT * FROM users WHERE name = 'O'Brien'");
h('code', 'de', 'Warum gibt mein Bash-Skript "command not found" aus, wenn ich `$PATH` ändere?');
h('code', 'zh', 'npm install 报错 EACCES permission denied，怎么办？');
h('code', 'ja', 'Dockerfile の COPY と ADD の違いは何ですか？');
h('code', 'ru', 'Как в pandas сгруппировать DataFrame по двум колонкам и посчитать среднее?');
h('code', 'pt', 'meu docker-compose não sobe o postgres, diz "port is already allocated". o que faço?');
h('code', 'en', 'Write a Python function that computes the variance of a list.', 'asks for code that does maths: code wins');
h('code', 'en', 'Write a program that solves quadratic equations.', 'code wins over math');
h('code', 'en', 'Implement the sieve of Eratosthenes in C.');
h('code', 'en', 'What is the Big-O of binary search and why?', 'algorithm analysis counts as code');
h('code', 'en', 'How do I compute a moving average in SQL?');
h('code', 'en', 'numpy: how to multiply two matrices element-wise vs matrix product?');
h('code', 'en', 'Excel formula to sum column B where column A equals "paid"', 'spreadsheet formulas count as code');
h('code', 'en', 'my cron job `0 */2 * * * /usr/bin/backup.sh` never runs, why?');
h('code', 'en', 'What does this YAML mean?\nreplicas: 3\nstrategy:\n  type: RollingUpdate\n  rollingUpdate:\n    maxSurge: 1');
h('code', 'en', 'Write a Terraform config for an S3 bucket with versioning enabled.');
h('code', 'en', 'Can you add comments to this?\n\nlet a = arr.map(x => x * 2).filter(Boolean)');
h('code', 'en', 'Set up ESLint and Prettier for a React project.');
h('code', 'en', 'How do I configure VS Code to format on save?');
h('code', 'en', 'Write a Jest test for a function that debounces calls.');
h('code', 'en', 'Explain the difference between INNER JOIN and LEFT JOIN with an example.');
h('code', 'en', 'why does 0.1 + 0.2 === 0.3 return false in JavaScript?', 'floating point in a language: code');
h('code', 'en', 'what is the output of print(2 ** 10) in python');
h('code', 'en', 'Write a LaTeX macro that typesets a vector in bold.');
h('code', 'en', 'ImportError: cannot import name "soft_unicode" from "markupsafe"');
h('code', 'en', 'def f(n):\n    return n if n < 2 else f(n-1) + f(n-2)\n\nmake this faster');
h('code', 'en', 'curl -X POST returns 415 Unsupported Media Type, what header am I missing?');
h('code', 'en', 'Write a GitHub Actions step that caches node_modules.');
h('code', 'ko', 'React에서 useEffect가 두 번 실행되는 이유가 뭔가요?');
h('code', 'it', 'Come faccio a leggere un file JSON in Node.js?');
h('code', 'es', '¿Cómo cuento las filas de una tabla en PostgreSQL?');
h('code', 'fr', 'Explique-moi ce que fait git stash.');
h('code', 'de', 'Wie kann ich in Python eine Liste von Dictionaries nach einem Schlüssel sortieren?');

// math
h('math', 'es', 'Un granjero tiene gallinas y conejos: 35 cabezas y 94 patas. ¿Cuántos animales hay de cada tipo?', 'Spanish word problem: math beats multilingual');
h('math', 'fr', 'Si un article coûte 80 € après une remise de 20 %, quel était son prix initial ?');
h('math', 'de', 'Ein Zug fährt mit 120 km/h. Wie lange braucht er für 300 km?');
h('math', 'zh', '一个等差数列的首项是3，公差是4，第20项是多少？');
h('math', 'ja', '三角形の内角の和が180度であることを証明してください。');
h('math', 'ru', 'Сколько существует способов выбрать 3 человек из 10?');
h('math', 'pt', 'Se eu investir 1000 reais a 1% ao mês, quanto terei em um ano?');
h('math', 'en', 'Explain what a derivative is.', 'explaining a mathematical idea is math');
h('math', 'en', 'What is 17 squared?');
h('math', 'en', 'How many seconds are there in a leap year?');
h('math', 'en', 'If a pizza is cut into 8 slices and I eat 3, what fraction is left?');
h('math', 'en', 'My recipe serves 4 and uses 300 g flour. How much flour for 7 people?');
h('math', 'en', 'What is the probability of being dealt a flush in poker?');
h('math', 'en', 'Explain why dividing by zero is undefined.');
h('math', 'en', "Is the set of rational numbers countable? Prove it.");
h('math', 'en', 'A cone has radius 3 and slant height 5. Find its surface area.');
h('math', 'en', 'What is log base 2 of 1024?');
h('math', 'en', 'Find the slope of the line through (2, 3) and (6, 11).');
h('math', 'en', 'What is the sum of the first 100 positive integers?');
h('math', 'en', 'Convert 72 degrees Fahrenheit to Celsius.');
h('math', 'en', "I earn $52,000 a year. What's that per hour for a 40-hour week?");
h('math', 'en', 'Prove that there is no largest even number.');
h('math', 'en', 'what is the integral of 1/(1+x^2)');
h('math', 'en', 'Why is the area of a circle pi r squared?');
h('math', 'en', 'How many handshakes happen if 12 people each shake hands once with everyone?');
h('math', 'en', 'Explain the difference between mean and median with an example.');
h('math', 'en', 'What is the expected number of coin flips to get two heads in a row?');
h('math', 'en', 'Show that the function f(x) = x^3 is injective.');
h('math', 'it', 'Quanto fa 15 per 24?');
h('math', 'ko', '1부터 100까지 더하면 얼마인가요?');
h('math', 'hi', 'एक रेलगाड़ी 60 किमी/घंटा की गति से 3 घंटे में कितनी दूरी तय करेगी?');
h('math', 'ar', 'ما هو ناتج 25 × 16؟');

// multilingual
h('multilingual', 'en', 'translate this sentence to French: the library closes at six on Sundays', 'translating natural language is multilingual');
h('multilingual', 'en', 'How do I say "where is the bathroom" in Japanese?');
h('multilingual', 'en', 'What is the difference between "ser" and "estar" in Spanish?', 'explaining a human language');
h('multilingual', 'en', 'Translate my out-of-office message into German and French: I am away until Monday and will reply when I am back.');
h('multilingual', 'en', 'Can you check my Spanish? "Yo soy cansado porque trabajé mucho hoy."');
h('multilingual', 'en', 'What does "Ich verstehe nur Bahnhof" mean?');
h('multilingual', 'en', 'Give me the Italian words for the days of the week.');
h('multilingual', 'en', 'Is it "la problème" or "le problème" in French?');
h('multilingual', 'en', 'How do you pronounce "Worcestershire" and what does it mean in Old English?');
h('multilingual', 'en', 'Translate "the derivative of x squared is 2x" into Spanish.', 'a translation request about maths text: the request is translation');
h('multilingual', 'es', '¿Cuál es la mejor época para visitar Patagonia?');
h('multilingual', 'es', 'Escribe un poema sobre las matemáticas.', 'a poem about maths, in Spanish: not math, so multilingual');
h('multilingual', 'fr', 'Raconte-moi une histoire sur un programmeur qui tombe amoureux.', 'a story about a programmer: not code');
h('multilingual', 'de', 'Was ist der Unterschied zwischen "seit" und "seid"?');
h('multilingual', 'zh', '帮我写一段生日祝福，送给我的同事。');
h('multilingual', 'ja', '最近おすすめのアニメはありますか？');
h('multilingual', 'ru', 'Посоветуй, куда поехать летом с детьми.');
h('multilingual', 'pt', 'Quem foi Machado de Assis?');
h('multilingual', 'it', 'Chi era Leonardo da Vinci?');
h('multilingual', 'ko', '김치찌개 만드는 법 알려줘.');
h('multilingual', 'ar', 'من هو ابن خلدون؟');
h('multilingual', 'hi', 'दिवाली क्यों मनाई जाती है?');
h('multilingual', 'nl', 'Kun je een recept geven voor stamppot?');
h('multilingual', 'sv', 'Vad ska jag se i Stockholm på en dag?');
h('multilingual', 'pl', 'Kim była Maria Skłodowska-Curie?');
h('multilingual', 'tr', 'İstanbul\'da gezilecek yerler nelerdir?');
h('multilingual', 'vi', 'Món phở có nguồn gốc từ đâu?');
h('multilingual', 'id', 'Bagaimana cara membuat nasi goreng?');
h('multilingual', 'es', 'Hola', 'a one-word greeting in Spanish');
h('multilingual', 'fr', 'Merci beaucoup !');
h('multilingual', 'de', 'Guten Morgen! Was kannst du alles?');
h('multilingual', 'es', 'Dame ideas de regalo para un amigo que programa.', 'a gift for a programmer is not code');
h('multilingual', 'de', 'Wer hat die Relativitätstheorie entwickelt?');
h('multilingual', 'fr', 'Quelle est la population de la France ?', 'a number as an answer is not maths');

// general: the topic is code or mathematics, but the request is neither
h('general', 'en', 'Write a poem about math.', 'a poem about maths is general');
h('general', 'en', 'Write a short story about a software developer who loses her job.');
h('general', 'en', 'What are the best universities for computer science?');
h('general', 'en', 'Who invented the Python programming language?', 'history of a language, no code');
h('general', 'en', 'Is a math degree worth it?');
h('general', 'en', 'How do I stay motivated while learning to program?');
h('general', 'en', 'Recommend a good book about the history of mathematics.');
h('general', 'en', 'What is the population of India?', 'a number as an answer is not maths');
h('general', 'en', 'When was the first iPhone released?');
h('general', 'en', 'Write an email asking my team to review the Q3 numbers before Friday.');
h('general', 'en', 'What time is it in Tokyo when it is noon in London?');
h('general', 'en', 'Write a resignation letter, two weeks notice.');
h('general', 'en', 'Correct the grammar: me and him goes to the store yesterday.', 'English grammar is not multilingual');
h('general', 'en', 'What does the idiom "bite the bullet" mean?', 'an English idiom is not multilingual');
h('general', 'en', 'Give me 10 trivia questions about space.');
h('general', 'en', 'Is Pluto a planet?');
h('general', 'en', 'What are some fun things to do in Paris?', 'a foreign place is not a foreign language');
h('general', 'en', 'Tell me about the history of Mexico City.');
h('general', 'en', 'What are traditional foods in Japan?');
h('general', 'en', 'Why is Shakespeare considered a great writer?');
h('general', 'en', 'ok');
h('general', 'en', 'thanks!');
h('general', 'en', 'lol that is hilarious');
h('general', 'en', 'can you help me?');
h('general', 'en', 'Write a job posting for a senior backend engineer.', 'a job ad for an engineer is not code');
h('general', 'en', 'What are the main differences between Windows and macOS for everyday use?');
h('general', 'en', 'My laptop is slow, should I buy a new one?');
h('general', 'en', 'How do I back up photos from my iPhone?');
h('general', 'en', 'Explain how GPS works.');
h('general', 'en', 'Who won the 2018 World Cup?');
h('general', 'en', 'Write a riddle whose answer is "seven".');
h('general', 'en', 'What is the Fibonacci sequence famous for in art and nature?', 'culture around a sequence, no solving');
h('general', 'en', 'Write a short bio for a mathematician giving a talk at our school.');
h('general', 'en', 'How should I prepare for a coding interview at a big tech company?', 'career advice');
h('general', 'en', 'Plan a weekly study schedule for a student taking calculus, chemistry and history.');
h('general', 'en', 'I want to name my startup something with "pi" in it, any ideas?');
h('general', 'en', 'Summarize the life of Alan Turing.');
h('general', 'en', 'What does a data scientist do?');
h('general', 'en', 'Describe Barcelona in three sentences.');
h('general', 'en', "I'm learning Spanish. Can you recommend some podcasts?", 'talks about a language but asks for podcasts, in English');

// Everyday questions that name a company or product spelled in two joined words (PayPal, iPhone):
// the name has the shape of a camelCase identifier, but nothing is asked of code.
h('general', 'en', 'How long does a PayPal transfer take to reach my bank?', 'a brand in camelCase shape is not code');
h('general', 'en', 'Should I get YouTube Music or Spotify?');
h('general', 'en', 'My iPhone battery drains fast overnight, what can I do?');
h('general', 'en', 'How do I sell my old bike on eBay safely?');
h('general', 'en', 'Is a PlayStation 5 or a Nintendo Switch better for kids?');
h('general', 'en', 'How much storage does iCloud give for free?');
h('general', 'en', "What are the healthiest options at McDonald's?");
h('general', 'en', 'Write a friendly LinkedIn post announcing my new job.');
h('general', 'en', 'How do I leave a WhatsApp group without anyone noticing?');
h('general', 'en', 'Is DoorDash cheaper than ordering directly from the restaurant?');
h('general', 'en', 'Can I return a MacBook I bought two weeks ago?');
h('general', 'en', 'How do I track a FedEx package without a tracking number?');
h('general', 'en', 'What is the best iPad for drawing?');
h('general', 'en', 'Is TikTok safe for a 12-year-old?');
h('general', 'en', 'How do I get a refund from the PlayStation Store?');
h('general', 'en', 'Does PayPal protect buyers if the seller never ships?');
h('general', 'en', 'How do I delete my old MySpace account?');
h('general', 'en', 'Which is better for a road trip, an AirBnB or a hotel?');
h('general', 'en', 'Recommend some good BookTok novels for summer.');
h('general', 'en', 'How do I turn on subtitles on YouTube on my TV?');
h('general', 'en', 'Is a JetBlue Mint seat worth the price for a 6-hour flight?');
h('general', 'en', 'Write a short thank-you note to my UberEats driver.');
h('general', 'en', 'How do I pair AirPods with an Android phone?');
h('general', 'en', 'What is the history of the GameBoy?');
h('general', 'en', 'Is it worth paying for SiriusXM in my car?');
h('general', 'en', 'How do I stop my iPhone from showing message previews?');
h('general', 'en', 'How do I dispute a charge on my PayPal account?');
h('general', 'en', 'Should I buy a SodaStream or just keep buying sparkling water?');
h('general', 'en', 'Who founded HubSpot and when?');
h('general', 'en', 'Please summarise the minutes of yesterday\'s meeting in a few lines.', '"please" is no sign of another language');
// "Say" alone is an everyday command, not a request for another language's wording.
h('general', 'en', 'Say hi to everyone at the party for me in a short toast.', '"say" without a language is general');
h('general', 'en', 'Say something encouraging, I have an exam tomorrow.');
h('general', 'en', 'Say good morning to my team in a cheerful way.');
h('general', 'en', 'Say that again but shorter.');
h('general', 'en', 'Just say yes or no: is coffee bad for you?');
h('general', 'en', 'Say a few words for my grandfather\'s retirement party.');
h('general', 'en', 'say hi');
h('general', 'en', 'What would you say is the best season to visit Canada?');
h('general', 'en', 'Hello there!', 'an English greeting is general');
h('general', 'en', 'Say hello to my friend Sam, it is his birthday today.');
h('general', 'en', 'hello, are you awake?');
// Short English that `eld` takes for another language, a little ahead of English: the words decide.
h('general', 'en', 'Sing a song.', 'eld says Hungarian');
h('general', 'en', 'Wave hello.', 'eld says Italian');
h('general', 'en', 'Hello mate', 'eld says Italian');
h('general', 'en', 'Hello, friend.', 'eld says Dutch');
h('general', 'en', 'Tell Anna hello.', 'eld says Norwegian');
// ... and "how do you say" still asks for another language's wording.
h('multilingual', 'en', 'How would you say "good night, sleep well" in Italian?');
h('multilingual', 'en', 'Say "thank you very much" in Korean, please.', '"say" with a target language is translation');
h('multilingual', 'en', 'What is the polite way to say "excuse me" in Japanese?');
// Code that names identifiers of the same two-word shape as brands: its words decide.
h('code', 'en', 'When should I use a HashMap instead of a TreeMap in Java?', 'a two-word identifier in code');
h('code', 'en', 'How do I sort an ArrayList of objects by a field?');
h('code', 'en', 'Why does my ViewModel lose its state when the screen rotates?');
h('code', 'en', 'My Kubernetes deployment uses strategy type RollingUpdate but pods restart all at once, why?');
h('code', 'en', 'What is the difference between a ListView and a RecyclerView in Android?');
h('code', 'en', 'Write a JavaScript function that debounces a callback.');
h('code', 'en', 'How do I call a REST API with HttpClient in C#?');
h('code', 'en', 'In SwiftUI, how do I pass data between views?');
h('code', 'en', 'How do I read a file line by line with BufferedReader?');
h('code', 'en', 'Set up a GitHub workflow that runs pytest on every push.');
h('code', 'en', 'Convert this to TypeScript: const add = (a, b) => a + b');
h('code', 'en', 'How do I use StringBuilder efficiently in a loop?');
// A nationality, a cuisine or a foreign dish named in an English request is no other language:
// "Spanish" in "a Spanish tortilla" is the dish's, not the answer's language.
h('general', 'en', 'How do I make a Spanish tortilla without it falling apart?', 'a nationality is not a language');
h('general', 'en', 'What should I order at a Korean barbecue restaurant?');
h('general', 'en', 'Is Japanese whisky as good as Scotch?');
h('general', 'en', 'Which German beers are good for someone who does not like bitter beer?');
h('general', 'en', 'What are classic French desserts I can bake for a dinner party?');
h('general', 'en', 'Are Italian espresso machines worth the money?');
h('general', 'en', 'What is a typical Spanish breakfast?');
h('general', 'en', 'Recommend some Korean dramas for a beginner.');
h('general', 'en', 'How spicy is Korean food compared to Thai food?');
h('general', 'en', 'What are the rules of German football leagues for promotion?');
h('general', 'en', 'Give me an easy Japanese curry recipe for a weeknight.');
h('general', 'en', 'Is a Spanish guitar good for a beginner?');
h('general', 'en', 'What are good Portuguese wines under 20 euros?');
h('general', 'en', 'Why are German cars so expensive to repair?');
h('general', 'en', 'Tell me about Japanese tea ceremonies.');
h('general', 'en', 'What makes Italian pizza different from American pizza?');
h('general', 'en', 'Plan a Spanish-themed dinner party for eight people.');
h('general', 'en', 'Is Korean skincare really better for sensitive skin?');
h('general', 'en', 'How do French people usually celebrate Christmas?');
h('general', 'en', 'What are the most popular Chinese dishes in the UK?');
h('general', 'en', 'How do I cook a French omelette so it stays soft?');
h('general', 'en', 'Write a shopping list for a Mexican taco night.');
h('general', 'en', 'Where can I take flamenco lessons as an adult beginner?');
h('general', 'en', 'Which Russian novels should I read first?');
h('general', 'en', 'What does a typical Japanese lunch box contain?');
h('general', 'en', 'What is a traditional German Christmas dinner?');
// A dish's name is French, Italian or Spanish, and `eld` may find that language a hair ahead of English.
h('general', 'en', 'Give me a simple ratatouille recipe.', 'eld says French');
h('general', 'en', 'Give me a simple paella recipe for four people.', 'eld says Spanish');
h('general', 'en', 'Give me a simple lasagne recipe.', 'eld says French');
h('general', 'en', 'Where can I take salsa dancing classes near me?');
// ... while asking about the language's wording, grammar or meaning stays multilingual.
h('multilingual', 'en', 'Is it "el agua" or "la agua" in Spanish, and why?', 'the grammar of another language');
h('multilingual', 'en', 'What is the Korean word for "grandmother" on the mother\'s side?');
h('multilingual', 'en', 'How do German speakers use "doch" in a sentence?');
h('multilingual', 'en', 'What does "itadakimasu" mean in Japanese and when is it said?');
h('multilingual', 'en', 'Translate "a table for two, please" into Italian.');
h('multilingual', 'en', 'When do I use "tu" and when "vous" in French?');
// Short everyday questions in Chinese and Japanese: no code in a few characters of Han or kana.
h('multilingual', 'zh', '帮我给房东写一条短信，说明天晚点交房租。', 'a short everyday request in Chinese');
h('multilingual', 'ja', '富士山に登るのに一番いい季節はいつですか？');
// Code about classes named in two joined words (ViewModel, MainActivity): the words around them decide.
h('code', 'en', 'My ViewController does not refresh its table after the network call returns, why?', 'a class named like a brand in code');
h('code', 'en', 'Why is my LiveData observer called twice after a configuration change?');
h('code', 'en', 'How do I pass an object from MainActivity to a Fragment?');
h('code', 'en', 'Should setup code go in AppDelegate or SceneDelegate?');
h('code', 'en', 'scheduled job in my k8s cluster skipped its run last night, how do I find out why?');

export const HAND_CASES: readonly Hand[] = out;
