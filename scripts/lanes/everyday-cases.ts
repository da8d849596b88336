/**
 * Requests added in session 28 after a probe of everyday prompts found four kinds in the wrong lane
 * (docs/api-decisions.md, "Lane classifier: session 28"): short questions about a programming
 * concept with no code in them (in several languages), everyday installs, updates and set-ups of
 * phones, computers and household things, everyday questions in Japanese, Chinese and Korean, and
 * short greetings and small talk in languages written in the Latin script. Written apart from the
 * probe's prompts, though three came out the same: "What is a closure?", "日本の首都はどこですか？"
 * and "What is a derivative?".
 */

/** Programming concepts, alone and in the pairs people ask to have told apart. */
const CONCEPTS = [
  'a closure', 'a lambda function', 'recursion', 'polymorphism', 'inheritance in object-oriented programming', 'encapsulation', 'a mutex',
  'a deadlock', 'a memory leak', 'a pointer', 'a null pointer', 'a hash table', 'a binary search tree', 'a linked list', 'a stack overflow',
  'a callback', 'a promise in JavaScript', 'a generator', 'a decorator', 'an iterator', 'a tuple', 'a struct', 'an enum', 'a constructor',
  'an interface', 'an abstract class', 'a singleton', 'dependency injection', 'a virtual machine', 'a compiler', 'an interpreter',
  'garbage collection', 'type inference', 'a generic type', 'a monad', 'currying', 'memoization', 'a hash function', 'a heap',
  'big O notation', 'an ORM', 'a foreign key', 'a primary key', 'a REST API', 'a websocket', 'middleware', 'a race condition',
  'hoisting', 'the static keyword', 'the final keyword', 'a namespace', 'a lambda expression', 'tail recursion', 'a vtable',
];
const CONCEPT_PAIRS = [
  ['var', 'let'], ['let', 'const'], ['const', 'readonly'], ['==', '==='], ['null', 'undefined'], ['a list', 'a tuple'], ['a list', 'an array'],
  ['a struct', 'a class'], ['an interface', 'a type alias'], ['an abstract class', 'an interface'], ['a process', 'a thread'],
  ['a stack', 'a queue'], ['a set', 'a dictionary in Python'], ['a map', 'an object in JavaScript'], ['pass by value', 'pass by reference'],
  ['a shallow copy', 'a deep copy'], ['static typing', 'dynamic typing'], ['compiled', 'interpreted languages'], ['SQL', 'NoSQL'],
  ['an inner join', 'a left join'], ['git fetch', 'git pull'], ['vim', 'emacs'], ['async', 'threads'], ['a function', 'a method'],
  ['an array', 'a slice in Go'], ['a Vec', 'a slice in Rust'], ['forEach', 'map'], ['a pointer', 'a reference in C++'],
];
const CONCEPT_TEMPLATES = ['What is {c}?', "What's {c}?", 'Explain {c}.', 'Can you explain {c} simply?', 'what is {c} in programming'];
const MATH_TEMPLATES = ['What is {c}?', "What's {c}?", 'Explain {c}.', 'Can you explain {c} simply?', 'what is {c} in math'];
const PAIR_TEMPLATES = ["What's the difference between {a} and {b}?", '{a} vs {b}?', 'When should I use {a} instead of {b}?'];
/** Editors and tools asked about with no code: how to leave, save or search in them. */
const EDITOR_QUESTIONS = [
  'How do I save and quit in vim?', 'How do I undo in vim?', 'How do I search and replace in vim?', 'How do I close a buffer in emacs?',
  'How do I get out of nano?', 'How do I leave the less pager?', 'How do I open the terminal in VS Code?', 'How do I rename a variable everywhere in IntelliJ?',
];

/** Conceptual code questions in other languages, as people ask them. */
const CODE_CONCEPTS_FOREIGN: Record<string, readonly string[]> = {
  es: ['¿Qué es una clausura en JavaScript?', '¿Qué es la recursividad?', '¿Cuál es la diferencia entre var y let?', '¿Qué es un puntero en C?', '¿Para qué sirve una interfaz?', '¿Qué es el polimorfismo?', '¿Cuál es la diferencia entre una lista y una tupla?', 'Explícame qué es una API REST.'],
  fr: ["Qu'est-ce que la récursivité ?", "Quelle est la différence entre let et var ?", "C'est quoi un pointeur ?", "Qu'est-ce que le polymorphisme ?", "À quoi sert une interface en Java ?", "Quelle est la différence entre une liste et un tuple ?", "Explique-moi les closures."],
  de: ['Was ist Rekursion?', 'Was ist der Unterschied zwischen let und var?', 'Was ist eine Closure in JavaScript?', 'Was ist Polymorphismus?', 'Wozu braucht man ein Interface?', 'Was ist ein Mutex?', 'Was ist der Unterschied zwischen Liste und Tupel?'],
  pt: ['O que é recursão?', 'Qual a diferença entre let e const?', 'O que é um ponteiro?', 'O que é polimorfismo?', 'Para que serve uma interface?', 'O que é uma closure em JavaScript?'],
  it: ['Cos\'è la ricorsione?', 'Qual è la differenza tra let e var?', 'Cos\'è un puntatore?', 'Che cos\'è il polimorfismo?', 'A cosa serve un\'interfaccia?'],
  ru: ['Что такое рекурсия?', 'В чём разница между let и var?', 'Что такое указатель?', 'Что такое полиморфизм?', 'Зачем нужен интерфейс?', 'Что такое мьютекс?'],
  zh: ['什么是递归？', 'let 和 var 有什么区别？', '什么是指针？', '什么是多态？', '接口有什么用？', '列表和元组有什么区别？'],
  ja: ['再帰とは何ですか？', 'let と var の違いは何ですか？', 'ポインタとは何ですか？', 'ポリモーフィズムとは何ですか？', 'インターフェースは何のために使いますか？', 'クロージャとは何ですか？'],
  ko: ['클로저가 뭔가요?', '스택과 큐의 차이는 뭔가요?', '객체 지향 프로그래밍이 뭔가요?', '재귀란 무엇인가요?', 'let과 var의 차이는 뭔가요?', '포인터가 뭔가요?', '다형성이란 무엇인가요?', '인터페이스는 왜 쓰나요?'],
};

/** Mathematics asked about in the same words as the concepts above, so that the wording alone says neither lane. */
const MATH_CONCEPTS = [
  'a derivative', 'an integral', 'a limit in calculus', 'a prime number', 'a logarithm', 'standard deviation', 'a p-value', 'a vector space',
  'an eigenvalue', 'a matrix determinant', 'the Pythagorean theorem', 'a geometric series', 'conditional probability', 'a normal distribution',
  'a confidence interval', 'a complex number', 'a rational number', 'modular arithmetic', 'a Taylor series', 'the chain rule',
];
const MATH_PAIRS = [
  ['mean', 'median'], ['permutations', 'combinations'], ['a scalar', 'a vector'], ['variance', 'standard deviation'], ['correlation', 'causation in statistics'],
  ['a rational', 'an irrational number'], ['sine', 'cosine'], ['a function', 'a relation in math'], ['an equation', 'an inequality'], ['independent', 'mutually exclusive events'],
];

/** Everyday ideas asked about in the same words again: the frame is the same in all three lanes. */
const EVERYDAY_CONCEPTS = [
  'a Roth IRA', 'a mortgage', 'inflation', 'an index fund', 'a credit score', 'stoicism', 'a sourdough starter', 'jet lag', 'a filibuster',
  'the offside rule', 'a carbon footprint', 'a haiku', 'impressionism', 'a black hole', 'cholesterol', 'a 401k', 'a prenup', 'umami',
];
const EVERYDAY_PAIRS = [
  ['a virus', 'bacteria'], ['a crocodile', 'an alligator'], ['baking soda', 'baking powder'], ['a latte', 'a flat white'], ['weather', 'climate'],
  ['a condo', 'a townhouse'], ['an LLC', 'a sole proprietorship'], ['a cold', 'the flu'], ['a debit card', 'a credit card'], ['jam', 'jelly'],
];

/** Everyday things people install, update, set up, reset or connect, none of them software to build. */
const THINGS = [
  'my iPad', 'my Android phone', 'my Samsung phone', 'my Apple Watch', 'my smart TV', 'my Kindle', 'my PS5', 'my Nintendo Switch',
  'my car stereo', 'my Garmin', 'my Wi-Fi router', 'my printer', 'my laptop to Windows 11', 'my Mac', 'the apps on my phone',
  'my phone to the latest Android version', 'my wireless earbuds', 'a baby car seat', 'a washing machine', 'a ceiling light',
  'a smoke detector', 'a smart thermostat', 'a video doorbell', 'a curtain rod', 'floating shelves', 'a new toilet seat',
  'winter tires', 'a bike rack on my car', 'a water filter under the sink', 'a dimmer switch', 'laminate flooring', 'a home security camera',
];
const THING_TEMPLATES = [
  'How do I install {t}?', 'How do I update {t}?', 'How do I set up {t}?', 'How do I reset {t}?', 'Can I install {t} myself?',
  'Is it worth updating {t}?', 'How long does it take to install {t}?', 'Who can install {t} for me?',
];

/** Developer tools installed, updated or set up, in the same words as THINGS. */
const DEV_TOOLS = [
  'Node to the latest LTS', 'Docker on Ubuntu', 'Python 3.12 on my Mac', 'the AWS CLI', 'kubectl', 'Postgres locally', 'my npm dependencies',
  'ESLint in my project', 'a pre-commit git hook', 'nginx on a VPS', 'Homebrew', 'Java 21 with SDKMAN', 'a Python virtualenv', 'my Rails app to Ruby 3.3',
  'CUDA for PyTorch', 'the Helm chart of my release', 'Terraform providers', 'my Go modules',
];

/** Everyday questions in Japanese, Chinese and Korean: places, superlatives, food, travel, small talk. */
const CJK_EVERYDAY: Record<string, readonly string[]> = {
  ja: [
    '世界で一番大きい国はどこですか？', '日本で一番長い橋は何ですか？', '北海道で一番人気の観光地はどこですか？', '一番好きな季節はいつですか？',
    '日本の首都はどこですか？', '富士山の高さはどれくらいですか？', '大阪でおいしいお好み焼きの店を教えてください。', '京都の紅葉はいつが見頃ですか？',
    '週末は何をしたらいいですか？', '東京から大阪まで新幹線で何時間かかりますか？', '雨の日に子どもと遊べる場所はありますか？', '誕生日プレゼントは何がいいですか？',
    '日本の伝統的なお正月の過ごし方を教えてください。', 'おいしいカレーの作り方を教えてください。', '沖縄旅行のおすすめプランを考えてください。', '桜の名所はどこですか？',
    '明日は何を着ればいいですか？', '猫はなぜ箱が好きなのですか？', 'この夏に読むべき小説は何ですか？', '一番おいしい果物は何だと思いますか？',
    'おはようございます！', 'お元気ですか？', 'おやすみなさい', '今日はとても疲れました。', '温泉の入り方を教えてください。',
    'お盆とは何ですか？', '紅茶と緑茶の違いは何ですか？', '侘び寂びとはどういう意味ですか？', '梅雨とは何ですか？', '着物と浴衣の違いは何ですか？',
    'ラーメンとうどん、どちらが好きですか？', 'コーヒーと紅茶はどちらが体にいいですか？', 'クリスマスのプレゼントのアイデアをください。', 'チケットはどこで買えますか？', '新しいベッドを買うときのポイントは？',
  ],
  zh: [
    '世界上最高的山是哪座？', '中国最长的河流是什么？', '北京有什么好吃的？', '秋天去哪里旅游比较好？', '你最喜欢什么颜色？', '早上好！',
    '怎么做红烧肉？', '春节有哪些传统习俗？', '推荐一部好看的电影。', '长城有多长？', '晚安', '周末带孩子去哪里玩？', '什么是通货膨胀？', '咖啡和茶有什么区别？',
  ],
  ko: [
    '세계에서 가장 높은 산은 어디인가요?', '한국에서 제일 유명한 음식은 뭐예요?', '부산에 가면 꼭 가봐야 할 곳은?', '좋은 아침이에요!', '김치찌개 만드는 법 알려주세요.',
    '제주도 여행 일정 짜 주세요.', '요즘 볼 만한 드라마 추천해 주세요.', '잘 자요', '생일 선물로 뭐가 좋을까요?', '인플레이션이란 무엇인가요?', '커피와 차의 차이는 뭔가요?', '명절에는 왜 송편을 먹나요?',
  ],
};

/** Everyday questions in the frames of CODE_CONCEPTS_FOREIGN ("what is", "the difference between"). */
const FOREIGN_WHAT_IS: Record<string, readonly string[]> = {
  es: ['¿Qué es el estoicismo?', '¿Qué es una hipoteca?', '¿Cuál es la diferencia entre el clima y el tiempo?', '¿Qué es la inflación?', '¿Cuál es la diferencia entre un cocodrilo y un caimán?', '¿Para qué sirve la vitamina D?', '¿Cuál es la población de México?'],
  fr: ["Qu'est-ce qu'un prêt immobilier ?", "C'est quoi le jet lag ?", "Qu'est-ce que l'impressionnisme ?", "Qu'est-ce que le stoïcisme ?", 'Quelle est la différence entre un crocodile et un alligator ?', 'À quoi sert la vitamine D ?', "Quelle est la capitale de l'Australie ?"],
  de: ['Was ist ein Bausparvertrag?', 'Was ist Jetlag?', 'Was ist der Unterschied zwischen Backpulver und Natron?', 'Was ist Inflation?', 'Was ist der Unterschied zwischen Wetter und Klima?', 'Wozu braucht man Vitamin D?', 'Wie viele Einwohner hat Österreich?'],
  pt: ['O que é estoicismo?', 'O que é um financiamento imobiliário?', 'Qual a diferença entre gripe e resfriado?', 'O que é inflação?', 'Qual a diferença entre jacaré e crocodilo?', 'Para que serve a vitamina D?'],
  it: ["Cos'è lo stoicismo?", "Cos'è un mutuo?", "Qual è la differenza tra raffreddore e influenza?", "Cos'è l'inflazione?", 'Qual è la differenza tra un cocodrillo e un alligatore?', 'A cosa serve la vitamina D?'],
  ru: ['Что такое ипотека?', 'Что такое стоицизм?', 'Что такое джетлаг?', 'В чём разница между простудой и гриппом?', 'Что такое инфляция?', 'В чём разница между погодой и климатом?', 'Зачем нужен витамин D?'],
  zh: ['什么是斯多葛主义？', '什么是房贷？', '感冒和流感有什么区别？', '什么是时差？'],
  ja: ['住宅ローンとは何ですか？', '時差ぼけとは何ですか？', '風邪とインフルエンザの違いは何ですか？', '印象派とは何ですか？', '七夕とは何ですか？'],
  ko: ['주택담보대출이란 무엇인가요?', '시차 적응이 뭔가요?', '감기와 독감의 차이는 뭔가요?', '인상주의란 무엇인가요?'],
};

/** Short English replies and small talk, beside the short greetings in other languages below. */
const ENGLISH_SMALL_TALK = ['yep', 'no', 'nope', 'sure', 'cool', 'got it', 'sounds good', 'bye!', 'good night', 'see you', 'thank you so much', 'nice one', 'awesome', 'hey there'];

/** Greetings and small talk in languages written in the Latin script, most too short for language detection. */
const LATIN_SMALL_TALK: Record<string, readonly string[]> = {
  es: ['Buenas noches', 'Hola, buenos días', 'Buenas tardes', '¿Cómo te va?', '¿Qué onda?', 'Hasta luego', 'Muchas gracias', 'De nada', '¿Todo bien?', 'Hola, ¿qué hay?'],
  pt: ['Bom dia!', 'Boa noite', 'Oi, tudo bem?', 'E aí, beleza?', 'Obrigada!', 'Até logo', 'Boa tarde!', 'Como vai?'],
  fr: ['Salut !', 'Bonsoir', 'Coucou', 'À bientôt !', 'Bonne nuit', 'Comment ça va ?', 'Merci !', 'Salut, ça roule ?'],
  de: ['Guten Morgen!', 'Servus!', 'Moin', 'Tschüss', 'Gute Nacht', 'Na, alles klar?', 'Grüß Gott', 'Bis später'],
  it: ['Buongiorno!', 'Buonasera', 'Come va?', 'Arrivederci', 'Ciao a tutti', 'Tutto bene?', 'Buonanotte'],
  nl: ['Goedemorgen', 'Hoi!', 'Dank je wel', 'Tot ziens'],
  pl: ['Dzień dobry', 'Cześć!', 'Dziękuję'],
  tr: ['Günaydın', 'Teşekkürler', 'İyi akşamlar'],
  sv: ['Hej hej!', 'God morgon', 'Tack så mycket'],
  id: ['Selamat pagi', 'Terima kasih', 'Apa kabar?'],
  vi: ['Chào buổi sáng', 'Cảm ơn bạn'],
};

/**
 * "Why does my ... ?" about services and about household things: the everyday installs above made
 * "my" lean everyday, and operations questions carry it as often.
 */
const WHY_MY = {
  code: [
    'Why does my Docker container exit right after it starts?', 'Why does my systemd service keep restarting?', 'Why does my Kubernetes deployment never become ready?',
    'Why does my nginx return 403 for static files?', 'Why does my GitHub Actions job stay queued?', 'Why does my Terraform state keep drifting?',
    'Why does my Node app run out of memory in a container?', 'Why does my Postgres connection pool stay exhausted?', 'How do I update my Kubernetes pods without downtime?',
    'How do I reset my Helm release to the previous revision?', 'How do I set up my CI pipeline to cache dependencies?',
  ],
  general: [
    'Why does my dishwasher stop in the middle of a cycle?', 'Why does my cat stay under the bed all day?', 'Why does my bread stay dense?',
    'Why does my phone battery drain so fast?', 'Why does my sourdough stay flat?', 'Why does my dog keep barking at night?',
    // products spelled like identifiers (iPad, macOS, AirPods), updated as a user, not built
    'How do I update my iPad to the newest iPadOS?', 'How do I update my MacBook to the latest macOS?', 'How do I update the firmware of my AirPods?',
    'Should I update my Apple Watch to watchOS 11?', 'How do I update the apps on my iPhone automatically?', 'How do I update my Fire TV Stick?',
  ],
} as const;

/**
 * Everyday English that names a developer's product or a nationality, which the additions above
 * pulled towards code and multilingual: whether a subscription is worth it, where to learn a dance.
 */
const EVERYDAY_NAMED = [
  'Is ChatGPT Plus worth it for a student?', 'Is LinkedIn Premium worth it when job hunting?', 'Is a Notion subscription worth it?',
  'Is Xbox Game Pass worth it?', 'Is Duolingo Super worth the money?', 'Is a JetBrains student license worth applying for?',
  'Where can I learn Italian cooking?', 'Where can I take French pastry classes?', 'Where can I learn Brazilian jiu-jitsu?',
  'Where can I learn Irish step dancing?', 'Where can I learn Argentine tango in Berlin?', 'Where can I learn Korean barbecue recipes?',
];

/** More of the everyday "what is" questions: the code concepts above outnumbered them in that frame. */
const EVERYDAY_WHAT_IS = [
  "a baker's dozen", 'a leap year', 'a blue moon', 'a solstice', 'a tsunami', 'a monsoon', 'a marsupial', 'a coral reef', 'a glacier',
  'a sonnet', 'a sitcom', 'a timeshare', 'an annuity', 'a pension', 'a flock of geese', 'a herd immunity threshold', 'a tapas bar', 'a sommelier',
];

/**
 * Mathematics asked in Japanese, Chinese and Korean in the words of their everyday questions
 * ("why", "how", "what is"): the everyday questions above made those words lean `multilingual`.
 */
const CJK_MATH = {
  ja: [
    '円の面積はなぜ半径の二乗に比例するのですか？', '三平方の定理を証明してください。', '1から100までの整数の和はいくつですか？', '素数が無限にあるのはなぜですか？',
    '正方形の対角線の長さはどうやって求めますか？', 'サイコロを2回振って合計が7になる確率は？', '二次方程式の解の公式を説明してください。', '0で割ってはいけないのはなぜですか？',
  ],
} as const;

/**
 * Short code that computes sums, means and products, pasted for review: the maths words in it must
 * not outweigh the code (code comes before math).
 */
const CODE_THAT_COUNTS = [
  'Can you check this function?\n\nfunction avg(xs){return xs.reduce((a,b)=>a+b,0)/xs.length}',
  'Review this please:\n\ndef total(prices): return sum(p * 1.2 for p in prices)',
  'Is this correct?\n\nconst product = nums.reduce((p, n) => p * n, 1);',
  'Any bugs here?\n\nfunction mean(a){let t=0;for(const v of a)t+=v;return t/a.length}',
  'Can you make this shorter?\n\nint s = 0; for (int i = 0; i < n; i++) { s += a[i] * a[i]; } return s;',
];

/** Plain English statements with no request, as pasted from a report or a message. */
const STATEMENTS = [
  'Our sales grew in every region this year.', 'Profits fell slightly in the northern region.', 'Costs rose in every department last quarter.',
  'The team hit its targets in every market.', 'Customer complaints dropped by a third after the new policy.', 'Attendance was lower than expected at every event.',
];

/**
 * Fragments that name data but no task, as a follow-up to a query or as a first message under a
 * system prompt that says what to do with them: too little to have a lane of their own, so they are
 * trained as vague follow-ups and take their conversation's lane (or the system text's).
 */
export const DATA_FRAGMENTS = [
  'only the ones from last month', 'users who never logged in', 'products with no sales this year', 'orders over 100 euros',
  'grouped by country', 'the same but sorted by date', 'invoices still unpaid after 30 days', 'employees hired before 2020',
];

export interface EverydayCase {
  readonly lane: 'code' | 'math' | 'general' | 'multilingual';
  readonly lang: string;
  readonly text: string;
}

export function everydayCases(): EverydayCase[] {
  const out: EverydayCase[] = [];
  CONCEPTS.forEach((c, i) => out.push({ lane: 'code', lang: 'en', text: (CONCEPT_TEMPLATES[i % CONCEPT_TEMPLATES.length] as string).replace('{c}', c) }));
  CONCEPT_PAIRS.forEach(([a, b], i) => out.push({ lane: 'code', lang: 'en', text: (PAIR_TEMPLATES[i % PAIR_TEMPLATES.length] as string).replace('{a}', a as string).replace('{b}', b as string) }));
  for (const text of EDITOR_QUESTIONS) out.push({ lane: 'code', lang: 'en', text });
  for (const [lang, xs] of Object.entries(CODE_CONCEPTS_FOREIGN)) for (const text of xs) out.push({ lane: 'code', lang, text });
  MATH_CONCEPTS.forEach((c, i) => out.push({ lane: 'math', lang: 'en', text: (MATH_TEMPLATES[i % MATH_TEMPLATES.length] as string).replace('{c}', c) }));
  MATH_PAIRS.forEach(([a, b], i) => out.push({ lane: 'math', lang: 'en', text: (PAIR_TEMPLATES[i % PAIR_TEMPLATES.length] as string).replace('{a}', a as string).replace('{b}', b as string) }));
  EVERYDAY_CONCEPTS.forEach((c, i) => out.push({ lane: 'general', lang: 'en', text: (CONCEPT_TEMPLATES[i % (CONCEPT_TEMPLATES.length - 1)] as string).replace('{c}', c) }));
  EVERYDAY_PAIRS.forEach(([a, b], i) => out.push({ lane: 'general', lang: 'en', text: (PAIR_TEMPLATES[i % PAIR_TEMPLATES.length] as string).replace('{a}', a as string).replace('{b}', b as string) }));
  DEV_TOOLS.forEach((t, i) => {
    for (const k of [i, i + 4]) out.push({ lane: 'code', lang: 'en', text: (THING_TEMPLATES[k % THING_TEMPLATES.length] as string).replace('{t}', t) });
  });
  THINGS.forEach((t, i) => {
    for (const k of [i, i + 3]) out.push({ lane: 'general', lang: 'en', text: (THING_TEMPLATES[k % THING_TEMPLATES.length] as string).replace('{t}', t) });
  });
  for (const [lang, xs] of Object.entries(CJK_EVERYDAY)) for (const text of xs) out.push({ lane: 'multilingual', lang, text });
  for (const text of ENGLISH_SMALL_TALK) out.push({ lane: 'general', lang: 'en', text });
  for (const [lang, xs] of Object.entries(FOREIGN_WHAT_IS)) for (const text of xs) out.push({ lane: 'multilingual', lang, text });
  for (const [lang, xs] of Object.entries(LATIN_SMALL_TALK)) for (const text of xs) out.push({ lane: 'multilingual', lang, text });
  for (const lane of ['code', 'general'] as const) for (const text of WHY_MY[lane]) out.push({ lane, lang: 'en', text });
  for (const text of EVERYDAY_NAMED) out.push({ lane: 'general', lang: 'en', text });
  for (const text of STATEMENTS) out.push({ lane: 'general', lang: 'en', text });
  for (const text of CODE_THAT_COUNTS) out.push({ lane: 'code', lang: 'en', text });
  for (const [lang, xs] of Object.entries(CJK_MATH)) for (const text of xs) out.push({ lane: 'math', lang, text });
  EVERYDAY_WHAT_IS.forEach((c, i) => out.push({ lane: 'general', lang: 'en', text: (i % 2 === 0 ? 'What is {c}?' : "What's {c}?").replace('{c}', c) }));
  return out;
}

/**
 * Session 29 (docs/api-decisions.md, "Lane classifier: session 29"): networking and systems
 * concepts asked with no code, which the data lacked; programming concepts asked in Spanish,
 * French, Chinese and other languages, which code comes before (docs/routing.md) but which went to
 * multilingual whenever their words were new to the data; a container's state named without the
 * word docker; and one-letter or near-empty English replies. Written apart from that session's
 * probe and tests.
 */
const NETWORK_CONCEPTS = [
  'a subnet mask', 'CIDR notation', 'NAT', 'a reverse proxy', 'a socket', 'a port number', 'a DNS A record', 'a CNAME record', 'a TLS certificate',
  'an IP address in networking', 'HTTP keep-alive', 'a CDN', 'round-robin load balancing', 'a VPN tunnel', 'packet loss', 'the OSI model',
  'an HTTP status code', 'a websocket connection', 'gRPC', 'long polling', 'a TTL in DNS', 'a firewall rule', 'TCP congestion control', 'a UDP datagram',
];
const NETWORK_PAIRS = [
  ['HTTP/1.1', 'HTTP/2'], ['IPv4', 'IPv6'], ['TCP', 'QUIC'], ['a hub', 'a switch in networking'], ['REST', 'GraphQL'], ['websockets', 'server-sent events'],
  ['a public IP', 'a private IP'], ['GET', 'POST requests'], ['a forward proxy', 'a reverse proxy'], ['latency', 'bandwidth in networking'], ['UDP', 'raw sockets'],
];
const NETWORK_QUESTIONS = [
  'How does TCP guarantee that packets arrive in order?', 'Why would a game use UDP instead of TCP?', 'How does a DNS lookup find an IP address?',
  'What happens when I type a URL into the browser and press enter?', 'How does TLS encrypt the connection between a browser and a server?',
  'Why do websockets need an HTTP upgrade?', 'How does a load balancer decide which server gets a request?', 'What does port 443 mean?',
];

/** Programming concepts asked in other languages in words the earlier data did not have. */
const CODE_CONCEPTS_FOREIGN_MORE: Record<string, readonly string[]> = {
  es: [
    '¿Para qué sirve un bucle while?', '¿Qué es una variable de entorno?', '¿Qué es una excepción en Java?', '¿Qué es un arreglo en programación?',
    '¿Qué es la herencia en programación orientada a objetos?', '¿Qué es un algoritmo de ordenamiento?', '¿Qué es un compilador?', '¿Cuál es la diferencia entre HTTP y HTTPS?',
    '¿Qué es un diccionario en Python?', '¿Qué es una base de datos relacional?', '¿Qué es un objeto en programación?', '¿Qué es una tabla hash?',
    '¿Qué es un protocolo de red como TCP?', '¿Qué es una clase en Python?', '¿Qué es un método estático?', '¿Qué es un árbol binario?',
  ],
  fr: [
    "À quoi sert une boucle while ?", "Qu'est-ce qu'une classe en Java ?", "Qu'est-ce qu'une exception en Python ?", 'Quelle est la différence entre HTTP et HTTPS ?',
    "Qu'est-ce qu'un tableau associatif ?", "Qu'est-ce que l'héritage en programmation objet ?", "C'est quoi une variable d'environnement ?",
    "Qu'est-ce qu'un algorithme de tri ?", "Qu'est-ce qu'une table de hachage ?", "Qu'est-ce qu'une méthode abstraite ?", "Qu'est-ce qu'un protocole réseau comme UDP ?",
    "Qu'est-ce qu'un arbre binaire ?", "C'est quoi une fonction lambda ?", "Qu'est-ce qu'un compilateur ?",
  ],
  zh: [
    '什么是二叉树？', '栈和队列有什么区别？', '数组和链表有什么区别？', '什么是面向对象编程？', '什么是异步编程？', '什么是死锁？', '什么是回调函数？',
    '什么是哈希函数？', '什么是垃圾回收？', '什么是正则表达式？', 'HTTP和HTTPS有什么区别？', '什么是API？', '什么是数据库索引？', '什么是抽象类？',
    '什么是TCP协议？', '什么是循环语句？', '什么是类和对象？', '什么是编译器？',
  ],
  de: ['Was ist eine abstrakte Klasse?', 'Was ist eine Hashtabelle?', 'Was ist der Unterschied zwischen TCP und QUIC?', 'Was ist eine Schleife in der Programmierung?', 'Was ist ein Compiler?'],
  pt: ['O que é uma classe abstrata?', 'O que é uma tabela hash?', 'O que é um laço for?', 'Qual a diferença entre HTTP e HTTPS?', 'O que é um compilador?'],
  it: ['Cos\'è una classe astratta?', 'Cos\'è una tabella hash?', 'Cos\'è un ciclo for?', 'Qual è la differenza tra HTTP e HTTPS?'],
  ru: ['Что такое абстрактный класс?', 'Что такое хеш-таблица?', 'Что такое цикл for?', 'В чём разница между HTTP и HTTPS?'],
  ja: ['抽象クラスとは何ですか？', 'ハッシュテーブルとは何ですか？', 'for文とは何ですか？', 'HTTPとHTTPSの違いは何ですか？'],
  ko: ['추상 클래스란 무엇인가요?', '해시 테이블이 뭔가요?', 'for 반복문이 뭔가요?', 'HTTP와 HTTPS의 차이는 뭔가요?'],
};

/**
 * Everyday questions in those languages in the same frames ("what is", "the difference between"),
 * in Chinese also with the same words in their everyday sense: abstract art, an agreement, a loop.
 */
const FOREIGN_EVERYDAY_MORE: Record<string, readonly string[]> = {
  es: ['¿Qué es la jubilación anticipada?', '¿Qué es el flamenco?', '¿Cuál es la diferencia entre un seguro de vida y uno de salud?', '¿Qué es la meditación?'],
  fr: ["Qu'est-ce que la retraite progressive ?", "Qu'est-ce que le Beaujolais nouveau ?", 'Quelle est la différence entre un livret A et un PEL ?', "Qu'est-ce que la méditation ?"],
  zh: [
    '什么是抽象艺术？', '这个协议要怎么签？', '什么是经济舱和商务舱？', '手表坏了怎么办？', '什么是循环经济？', '什么是养老金？', '什么是信用卡年费？',
    '什么是中医？', '什么是二十四节气？', '什么是冥想？', '什么是碳中和？', '什么是基金定投？', '绿茶和红茶有什么区别？', '猫和狗哪个更好养？',
    '租房和买房有什么区别？', '什么是端午节？', '什么是京剧？', '什么是马拉松？',
  ],
};

/** English "Explain X." and "When should I use X instead of Y?" about everyday things: the networking concepts above used those frames too. */
const EVERYDAY_EXPLAIN = [
  'a pension plan', 'the greenhouse effect', 'a balanced diet', 'compound interest on a savings account', 'a credit union', 'the electoral college',
  'the water cycle', 'a recession', 'the offside trap', 'how the stock market works', 'a healthy sleep routine', 'the jet stream',
];
/**
 * Translations of everyday sentences that hold a word the lexicon counts for code in its technical
 * sense (a class, a table, a program, a library): the concept questions above weigh those words.
 */
const TRANSLATE_EVERYDAY = [
  'Translate into Spanish: the yoga class starts at nine.', 'Translate to German: the TV program starts at eight.', 'Translate into French: please set the table for six.',
  'Translate to Italian: the library is closed on Mondays.', 'Translate into Portuguese: our server at the restaurant was very kind.', 'Translate to Chinese: the loop trail takes two hours.',
];
const EVERYDAY_INSTEAD = [
  ['a credit card', 'cash abroad'], ['a humidifier', 'a dehumidifier'], ['olive oil', 'butter for baking'], ['a travel agent', 'booking online'],
  ['a foam roller', 'a massage gun'], ['sunscreen SPF 50', 'SPF 30'],
];
/** Household jobs done oneself: the protocols and concepts above made "can I ... myself" lean code. */
const DIY_MYSELF = [
  'Can I install a heat pump myself?', 'Can I install an EV charger at home myself?', 'Can I replace a light switch myself?', 'Can I put in a new kitchen sink myself?',
  'Can I install a rain barrel myself?', 'Can I fit a new front door myself?',
];
/** One-word replies in other languages, beside the English ones: the language, not the length, decides. */
const FOREIGN_ONE_WORD: Record<string, readonly string[]> = {
  es: ['Vale', 'Claro', 'Genial', 'Bueno, gracias'], fr: ['Oui', 'Bien sûr', 'Volontiers'], de: ['Danke', 'Genau', 'Bitte sehr'], it: ['Grazie', 'Prego', 'Certo'], pt: ['Valeu', 'Claro que sim'],
};

/** A container's state as Docker or Podman names it, asked without the tool's name. */
const CONTAINER_STATES = [
  'My container shows Exited (1) right after it starts, how do I see why?', 'The container status says Restarting over and over, what do I check?',
  'How do I resume a container that is Paused?', 'My container went into the Dead state after a host reboot.', 'Why does the container exit with code 137?',
  'How do I get a shell inside a running container?', 'The container is Up but the port is not reachable from the host.', 'My container status is unhealthy, what does the health check look at?',
];
/** Everyday containers, to keep the word itself everyday. */
const EVERYDAY_CONTAINERS = [
  'What size container does a tomato plant need?', 'How do I get the smell out of a plastic food container?', 'How much does it cost to ship a container of furniture overseas?',
  'Can I put a glass container in the freezer?',
];

/** One-letter and near-empty English replies: nothing asked, so nothing but general. */
const TINY_REPLIES = ['n', 'x', 'o', 'm', 'j', 'z', 'q', 'ty', 'np', 'ikr', 'ya', 'yup', 'hm', 'hmm', 'idk', 'brb', 'ok!', 'mhm', 'ye', 'gg'];

export function session29Cases(): EverydayCase[] {
  const out: EverydayCase[] = [];
  NETWORK_CONCEPTS.forEach((c, i) => out.push({ lane: 'code', lang: 'en', text: (CONCEPT_TEMPLATES[i % (CONCEPT_TEMPLATES.length - 1)] as string).replace('{c}', c) }));
  NETWORK_PAIRS.forEach(([a, b], i) => out.push({ lane: 'code', lang: 'en', text: (PAIR_TEMPLATES[i % PAIR_TEMPLATES.length] as string).replace('{a}', a as string).replace('{b}', b as string) }));
  for (const text of NETWORK_QUESTIONS) out.push({ lane: 'code', lang: 'en', text });
  for (const [lang, xs] of Object.entries(CODE_CONCEPTS_FOREIGN_MORE)) for (const text of xs) out.push({ lane: 'code', lang, text });
  for (const [lang, xs] of Object.entries(FOREIGN_EVERYDAY_MORE)) for (const text of xs) out.push({ lane: 'multilingual', lang, text });
  for (const text of CONTAINER_STATES) out.push({ lane: 'code', lang: 'en', text });
  for (const text of EVERYDAY_CONTAINERS) out.push({ lane: 'general', lang: 'en', text });
  for (const text of TINY_REPLIES) out.push({ lane: 'general', lang: 'en', text });
  for (const [a, b] of EVERYDAY_INSTEAD) out.push({ lane: 'general', lang: 'en', text: `When should I use ${a} instead of ${b}?` });
  for (const text of TRANSLATE_EVERYDAY) out.push({ lane: 'multilingual', lang: 'en', text });
  for (const text of DIY_MYSELF) out.push({ lane: 'general', lang: 'en', text });
  for (const [lang, xs] of Object.entries(FOREIGN_ONE_WORD)) for (const text of xs) out.push({ lane: 'multilingual', lang, text });
  EVERYDAY_EXPLAIN.forEach((c, i) => out.push({ lane: 'general', lang: 'en', text: (i % 2 === 0 ? 'Explain {c}.' : 'Can you explain {c} simply?').replace('{c}', c) }));
  return out;
}
