/**
 * Fillers for the lane data generator: code snippets, stack traces, configuration files and
 * prose paragraphs (English and other languages) that the templates paste into requests.
 */

export interface Snippet {
  readonly lang: string;
  readonly code: string;
}

export const SNIPPETS: readonly Snippet[] = [
  {
    lang: 'Python',
    code: `def average(xs):
    total = 0
    for x in xs:
        total += x
    return total / len(xs)

print(average([]))`,
  },
  {
    lang: 'Python',
    code: `import requests

def fetch_all(urls):
    results = []
    for u in urls:
        r = requests.get(u)
        results.append(r.json()["data"])
    return results`,
  },
  {
    lang: 'Python',
    code: `class Stack:
    def __init__(self):
        self.items = []
    def push(self, item):
        self.items.append(item)
    def pop(self):
        return self.items.pop(0)`,
  },
  {
    lang: 'JavaScript',
    code: `for (var i = 0; i < 5; i++) {
  setTimeout(function () {
    console.log(i);
  }, 100);
}`,
  },
  {
    lang: 'JavaScript',
    code: `async function loadUsers() {
  const res = fetch('/api/users');
  const users = await res.json();
  return users.filter(u => u.active).map(u => u.name);
}`,
  },
  {
    lang: 'JavaScript',
    code: `const total = items.reduce((sum, item) => {
  sum + item.price * item.qty;
}, 0);
document.getElementById('total').innerText = total.toFixed(2);`,
  },
  {
    lang: 'TypeScript',
    code: `interface User { id: number; name?: string }

function greet(user: User): string {
  return 'Hello, ' + user.name.toUpperCase();
}`,
  },
  {
    lang: 'TypeScript',
    code: `export function useDebounce<T>(value: T, delay = 300): T {
  const [debounced, setDebounced] = useState(value);
  useEffect(() => {
    const id = setTimeout(() => setDebounced(value), delay);
  }, [value, delay]);
  return debounced;
}`,
  },
  {
    lang: 'Go',
    code: `func worker(jobs <-chan int, results chan<- int, wg *sync.WaitGroup) {
	for j := range jobs {
		results <- j * 2
	}
}

func main() {
	var wg sync.WaitGroup
	jobs := make(chan int, 100)
	results := make(chan int, 100)
	for w := 0; w < 3; w++ {
		wg.Add(1)
		go worker(jobs, results, &wg)
	}
	wg.Wait()
}`,
  },
  {
    lang: 'Rust',
    code: `fn longest(a: &str, b: &str) -> &str {
    if a.len() > b.len() { a } else { b }
}

fn main() {
    let s = String::from("hello");
    let r = longest(&s, "hi");
    println!("{}", r);
}`,
  },
  {
    lang: 'Rust',
    code: `let mut v = vec![1, 2, 3];
let first = &v[0];
v.push(4);
println!("first = {}", first);`,
  },
  {
    lang: 'Java',
    code: `public class Counter {
    private int count = 0;
    public void increment() { count++; }
    public int get() { return count; }
    public static void main(String[] args) throws Exception {
        Counter c = new Counter();
        Thread t1 = new Thread(() -> { for (int i = 0; i < 1000; i++) c.increment(); });
        t1.start();
        System.out.println(c.get());
    }
}`,
  },
  {
    lang: 'C',
    code: `#include <stdio.h>
#include <stdlib.h>

int main(void) {
    char *buf = malloc(10);
    strcpy(buf, "hello world");
    printf("%s\\n", buf);
    free(buf);
    free(buf);
    return 0;
}`,
  },
  {
    lang: 'C++',
    code: `std::vector<int> v = {3, 1, 2};
for (auto it = v.begin(); it != v.end(); ++it) {
    if (*it == 1) v.erase(it);
}
std::sort(v.begin(), v.end());`,
  },
  {
    lang: 'SQL',
    code: `SELECT c.name, COUNT(o.id) AS orders
FROM customers c
LEFT JOIN orders o ON o.customer_id = c.id
WHERE o.created_at > '2024-01-01'
GROUP BY c.name
ORDER BY orders DESC;`,
  },
  {
    lang: 'SQL',
    code: `UPDATE accounts SET balance = balance - 100 WHERE id = 1;
UPDATE accounts SET balance = balance + 100 WHERE id = 2;`,
  },
  {
    lang: 'Bash',
    code: `#!/bin/bash
for f in $(ls *.txt); do
  mv $f \${f%.txt}.md
done`,
  },
  {
    lang: 'Ruby',
    code: `def fib(n)
  return n if n < 2
  fib(n - 1) + fib(n - 2)
end

puts (1..40).map { |i| fib(i) }.inspect`,
  },
  {
    lang: 'PHP',
    code: `<?php
$id = $_GET['id'];
$result = mysqli_query($conn, "SELECT * FROM users WHERE id = $id");
while ($row = mysqli_fetch_assoc($result)) {
    echo $row['email'];
}`,
  },
  {
    lang: 'Kotlin',
    code: `data class Point(val x: Int, val y: Int)

fun main() {
    val points = listOf(Point(1, 2), Point(3, 4))
    val sum = points.fold(0) { acc, p -> acc + p.x * p.y }
    println(sum)
}`,
  },
  {
    lang: 'C#',
    code: `public async Task<string> GetAsync(string url)
{
    using var client = new HttpClient();
    var result = client.GetStringAsync(url).Result;
    return result;
}`,
  },
  {
    lang: 'Swift',
    code: `struct Todo: Codable { let id: Int; let title: String }

func load() async throws -> [Todo] {
    let (data, _) = try await URLSession.shared.data(from: URL(string: "https://example.com/todos")!)
    return try JSONDecoder().decode([Todo].self, from: data)
}`,
  },
];

export const TRACES: readonly string[] = [
  `Traceback (most recent call last):
  File "app.py", line 42, in <module>
    main()
  File "app.py", line 37, in main
    user = users[user_id]
KeyError: 'u_1932'`,
  `Traceback (most recent call last):
  File "/srv/train.py", line 88, in <module>
    loss = model(x).sum()
  File "/usr/lib/python3.11/site-packages/torch/nn/modules/module.py", line 1501, in _call_impl
    return forward_call(*args, **kwargs)
RuntimeError: mat1 and mat2 shapes cannot be multiplied (64x512 and 256x10)`,
  `TypeError: Cannot read properties of undefined (reading 'map')
    at ProductList (webpack-internal:///./src/components/ProductList.jsx:14:23)
    at renderWithHooks (react-dom.development.js:16305:18)
    at mountIndeterminateComponent (react-dom.development.js:20074:13)`,
  `Exception in thread "main" java.lang.NullPointerException: Cannot invoke "String.length()" because "name" is null
	at com.example.App.validate(App.java:27)
	at com.example.App.main(App.java:12)`,
  `panic: runtime error: index out of range [3] with length 3

goroutine 1 [running]:
main.main()
	/home/dev/project/main.go:14 +0x1d
exit status 2`,
  `error[E0502]: cannot borrow \`v\` as mutable because it is also borrowed as immutable
 --> src/main.rs:4:5
  |
3 |     let first = &v[0];
  |                  - immutable borrow occurs here
4 |     v.push(4);
  |     ^^^^^^^^^ mutable borrow occurs here`,
  `npm ERR! code ERESOLVE
npm ERR! ERESOLVE unable to resolve dependency tree
npm ERR! Found: react@18.2.0
npm ERR! Could not resolve dependency:
npm ERR! peer react@"^17.0.0" from react-beautiful-dnd@13.1.1`,
  `psycopg2.errors.UniqueViolation: duplicate key value violates unique constraint "users_email_key"
DETAIL:  Key (email)=(ana@example.com) already exists.`,
  `Segmentation fault (core dumped)
==12345== Invalid free() / delete / delete[] / realloc()
==12345==    at 0x483CA3F: free (vg_replace_malloc.c:540)
==12345==    by 0x109205: main (main.c:9)`,
  `fatal: refusing to merge unrelated histories
error: failed to push some refs to 'github.com:team/app.git'
hint: Updates were rejected because the tip of your current branch is behind`,
  `Error: listen EADDRINUSE: address already in use :::3000
    at Server.setupListenHandle [as _listen2] (node:net:1817:16)
    at listenInCluster (node:net:1865:12)`,
  `django.db.utils.OperationalError: no such table: blog_post`,
];

export const CONFIGS: readonly { readonly kind: string; readonly text: string }[] = [
  {
    kind: 'nginx config',
    text: `server {
    listen 80;
    server_name example.com;
    location /api {
        proxy_pass http://localhost:3000
    }
}`,
  },
  {
    kind: 'docker-compose file',
    text: `version: "3.8"
services:
  db:
    image: postgres:16
    environment:
      POSTGRES_PASSWORD: secret
  web:
    build: .
    ports:
      - "8000:8000"
    depends_on: db`,
  },
  {
    kind: 'Dockerfile',
    text: `FROM node:20
COPY . .
RUN npm install
CMD node server.js`,
  },
  {
    kind: 'GitHub Actions workflow',
    text: `on: push
jobs:
  test:
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@v4
      - run: npm ci
      - run: npm test`,
  },
  {
    kind: 'tsconfig.json',
    text: `{
  "compilerOptions": {
    "target": "ES2022",
    "module": "commonjs",
    "strict": true,
    "outDir": "dist"
  }
}`,
  },
  {
    kind: 'Kubernetes manifest',
    text: `apiVersion: apps/v1
kind: Deployment
metadata:
  name: api
spec:
  replicas: 3
  template:
    spec:
      containers:
        - name: api
          image: registry.example.com/api:1.4
          resources:
            limits: { memory: 256Mi }`,
  },
];

export const REGEXES: readonly string[] = [
  '^(?=.*[A-Z])(?=.*\\d)[A-Za-z\\d@$!%*?&]{8,}$',
  '\\b\\d{3}-\\d{2}-\\d{4}\\b',
  '^[\\w.+-]+@[\\w-]+\\.[\\w.]+$',
  '(?<=\\$)\\d+(\\.\\d{2})?',
  '^#?([a-fA-F0-9]{6}|[a-fA-F0-9]{3})$',
  '/^(\\d{1,3}\\.){3}\\d{1,3}$/',
  's/\\s+$//g',
];

/** English prose for long general requests (summaries, rewrites, opinions). */
export const EN_PROSE: readonly string[] = [
  `Our team spent the last quarter moving the customer support desk to a new ticketing system. The migration itself went smoothly, but response times rose for about three weeks while agents learned the new workflows. We also discovered that many customers were writing in about the same billing question, which suggests the invoice layout is confusing. Next quarter we plan to redesign the invoice, publish a short help article, and hire two more agents for the evening shift.`,
  `The town council met on Tuesday to discuss the proposal for a new public library on the site of the old bus depot. Supporters argued that the current library is too small and lacks accessible entrances, while opponents worried about traffic and the cost to taxpayers. After two hours of public comments, the council agreed to commission an independent study and to revisit the decision in the spring.`,
  `I have been running three times a week for about six months, mostly five kilometre loops around the park near my apartment. Recently my left knee has started to ache after longer runs, especially on downhill stretches. I stretch before and after, and my shoes are about a year old. I would like to train for a half marathon in the autumn without making the knee worse.`,
  `Dear hiring committee, I am writing to apply for the position of project coordinator. Over the past four years I have organised community events, managed volunteer schedules for a food bank, and kept budgets for grants of up to forty thousand dollars. I enjoy bringing people together around a shared plan, and I am comfortable with spreadsheets, shared calendars and difficult conversations.`,
  `The novel follows a young lighthouse keeper who arrives on a remote island just before a winter storm cuts it off from the mainland. As supplies dwindle, she begins to find letters left by the previous keeper, and the letters slowly reveal why he disappeared. The story moves between her diary and his letters, and the ending leaves open whether the island itself is responsible.`,
  `Remote work has changed how many companies think about offices. Some firms have given up their leases entirely, while others ask staff to come in two or three days a week. Managers report that onboarding new employees is harder at a distance, but many workers say they value the time they no longer spend commuting. The debate is far from settled.`,
];

/** Paragraphs in other languages, for long requests that are mainly not English. */
export const FOREIGN_PROSE: readonly { readonly lang: string; readonly name: string; readonly text: string }[] = [
  {
    lang: 'es',
    name: 'Spanish',
    text: `El ayuntamiento anunció ayer que las obras del nuevo parque comenzarán en marzo y durarán aproximadamente un año. Los vecinos del barrio llevan años pidiendo más zonas verdes, pero algunos comerciantes temen que las obras afecten a sus ventas. El alcalde prometió que se mantendrá el acceso a todas las tiendas y que se habilitarán aparcamientos provisionales durante la construcción.`,
  },
  {
    lang: 'fr',
    name: 'French',
    text: `La réunion de l'association des parents d'élèves s'est tenue jeudi soir dans la salle polyvalente. Les participants ont discuté de la sortie scolaire de fin d'année, du coût de la cantine et de la sécurité aux abords de l'école le matin. Une pétition sera envoyée à la mairie pour demander un passage piéton supplémentaire devant l'entrée principale.`,
  },
  {
    lang: 'de',
    name: 'German',
    text: `Seit Anfang des Jahres arbeitet unser Team an einem neuen Konzept für die Kundenbetreuung. Wir haben festgestellt, dass viele Anfragen sich wiederholen und mit einer besseren Dokumentation vermieden werden könnten. Deshalb planen wir, im Sommer eine überarbeitete Hilfeseite zu veröffentlichen und die Öffnungszeiten der Hotline zu verlängern.`,
  },
  {
    lang: 'pt',
    name: 'Portuguese',
    text: `A empresa anunciou que vai abrir uma nova loja no centro da cidade no próximo mês. Segundo a gerente, a escolha do local levou em conta o movimento de pedestres e a proximidade do metrô. Serão contratados cerca de trinta funcionários, e as inscrições para as vagas já estão abertas no site da empresa.`,
  },
  {
    lang: 'it',
    name: 'Italian',
    text: `Il festival del cinema si è concluso domenica con la premiazione dei film vincitori. Quest'anno la giuria ha scelto di premiare soprattutto opere prime di giovani registi, molte delle quali raccontano storie di migrazione e di famiglia. Gli organizzatori hanno registrato un aumento del pubblico rispetto all'anno scorso e pensano già alla prossima edizione.`,
  },
  {
    lang: 'zh',
    name: 'Chinese',
    text: `今年夏天，我们公司组织了一次为期三天的团队建设活动。大家一起去了山里徒步，还参加了烧烤和篝火晚会。很多同事表示，这次活动让他们更了解彼此，也让平时的合作更加顺利。公司计划明年继续举办类似的活动，并邀请家属一起参加。`,
  },
  {
    lang: 'ja',
    name: 'Japanese',
    text: `先週の週末、家族と一緒に京都へ旅行に行きました。紅葉の季節だったので、お寺や庭園はとても美しく、多くの観光客でにぎわっていました。夜は旅館に泊まり、温泉と懐石料理を楽しみました。次はもっと静かな時期に、ゆっくりと訪れたいと思います。`,
  },
  {
    lang: 'ru',
    name: 'Russian',
    text: `В прошлом месяце наша команда переехала в новый офис в центре города. Помещение стало просторнее, появились отдельные переговорные комнаты и небольшая кухня. Правда, многим сотрудникам теперь дольше добираться до работы, поэтому руководство обсуждает возможность работать из дома два дня в неделю.`,
  },
  {
    lang: 'ko',
    name: 'Korean',
    text: `지난 주말에 친구들과 함께 부산에 다녀왔습니다. 해운대 해변을 산책하고 시장에서 맛있는 해산물을 먹었습니다. 날씨가 조금 더웠지만 바다 바람이 시원해서 좋았습니다. 다음에는 가을에 다시 가서 영화제도 구경하고 싶습니다.`,
  },
  {
    lang: 'ar',
    name: 'Arabic',
    text: `أعلنت وزارة التعليم عن خطة جديدة لتطوير المناهج الدراسية في المرحلة الابتدائية. وتهدف الخطة إلى تعزيز مهارات القراءة والتفكير النقدي لدى الطلاب، إضافة إلى إدخال أنشطة عملية في مادة العلوم. ومن المتوقع أن يبدأ تطبيق الخطة مع بداية العام الدراسي المقبل.`,
  },
  {
    lang: 'hi',
    name: 'Hindi',
    text: `पिछले महीने हमारे शहर में एक बड़ा पुस्तक मेला आयोजित किया गया था। मेले में देश भर के प्रकाशकों ने भाग लिया और बच्चों के लिए कहानी सुनाने के कई कार्यक्रम भी हुए। आयोजकों के अनुसार इस बार पिछले साल की तुलना में कहीं अधिक लोग मेले में आए।`,
  },
  {
    lang: 'nl',
    name: 'Dutch',
    text: `De gemeente heeft besloten om het centrum van de stad autovrij te maken vanaf volgend jaar. Bewoners en winkeliers kregen de afgelopen maanden de kans om hun mening te geven. Veel mensen zijn blij met de plannen, maar sommige ondernemers maken zich zorgen over de bereikbaarheid van hun winkels.`,
  },
];
