/**
 * Words that point to a lane in many languages. The model learns how much each count matters; the
 * lists give it a prior that reaches beyond the wording of its training requests. Latin, Cyrillic,
 * Arabic, Devanagari and Hangul entries match whole words (lower case); Han and kana entries match
 * two-character sequences; an entry is one word (no punctuation), or two words separated by one
 * space, which match as a word bigram (for a word whose everyday sense is as common as its
 * technical one: "helm chart", not "helm").
 */
export const LEXICON: Record<'code' | 'math' | 'translate', readonly string[]> = {
  code: [
    // English
    'code', 'coding', 'program', 'programming', 'function', 'functions', 'method', 'class', 'variable', 'variables', 'script', 'bug',
    'debug', 'compile', 'compiler', 'error', 'exception', 'stack', 'trace', 'traceback', 'api', 'endpoint', 'server', 'backend',
    'frontend', 'database', 'query', 'queries', 'sql', 'regex', 'regexp', 'git', 'commit', 'branch', 'merge', 'rebase', 'docker',
    'dockerfile', 'kubernetes', 'yaml', 'json', 'config', 'nginx', 'deploy', 'npm', 'pip', 'python', 'javascript', 'typescript',
    'java', 'rust', 'golang', 'go', 'c', 'cpp', 'ruby', 'php', 'kotlin', 'swift', 'bash', 'shell', 'terminal', 'linux',
    'react', 'node', 'nodejs', 'django', 'flask', 'fastapi', 'express', 'postgres', 'postgresql', 'mysql', 'mongodb', 'redis', 'html',
    'css', 'thread', 'threads', 'async', 'await', 'loop', 'array', 'string', 'integer', 'boolean', 'null', 'undefined', 'refactor',
    'unit', 'test', 'tests', 'jest', 'pytest', 'library', 'framework', 'package', 'dependency', 'install', 'cli', 'http', 'cors',
    'index', 'schema', 'migration', 'repo', 'repository', 'pandas', 'numpy', 'segfault', 'runtime', 'syntax', 'lint', 'eslint',
    // operations: the tools, their objects and their states, words with no everyday sense, so that
    // a count of them says code however little of the sentence the training data has seen; words
    // that have one (pod, helm, proxy) only beside a word that makes them technical
    'kubectl', 'kubeadm', 'kubelet', 'minikube', 'kube', 'k8s', 'k3s', 'ingress', 'statefulset', 'daemonset', 'configmap',
    'namespace', 'replicaset', 'crashloopbackoff', 'imagepullbackoff', 'oomkilled', 'etcd', 'terraform', 'tfstate', 'tfvars', 'hcl',
    'pulumi', 'cloudformation', 'ansible', 'systemd', 'systemctl', 'journalctl', 'crontab', 'cron', 'nginx', 'httpd', 'haproxy',
    'traefik', 'certbot', 'iptables', 'ssh', 'sudo', 'chmod', 'chown', 'localhost', 'dns', 'tls', 'ssl', 'ec2', 'rds', 's3', 'iam',
    'vpc', 'eks', 'gke', 'aws', 'gcp', 'jenkinsfile', 'gitlab', 'github', 'ci', 'yml', 'toml', 'makefile', 'podman', 'virtualenv',
    'venv', 'ubuntu', 'debian', 'env', 'webhook', 'grafana', 'powershell',
    // networking as programs meet it: protocols with no everyday sense, and a container's states
    // as Docker and Podman name them (a container alone is as much a lunch box)
    'tcp', 'udp', 'quic', 'ipv4', 'ipv6', 'websocket', 'websockets', 'subnet', 'grpc', 'load balancer', 'load balancing',
    'created state', 'exited state', 'container status', 'container state', 'container exited',
    'my pod', 'pod keeps', 'pod stuck', 'pod logs', 'pod restarts', 'pending pod', 'get pods', 'helm chart', 'helm charts',
    'helm release', 'helm install', 'helm upgrade', 'helm rollback', 'helm template', 'helm repo', 'reverse proxy', 'proxy pass',
    // programming concepts asked about with no code ("What is a closure?"), by words that name
    // nothing else, in the languages of the data; not the ones with an everyday sense (interface,
    // inheritance, decorator, interpreter)
    'const', 'tuple', 'tuples', 'struct', 'enum', 'hashmap', 'mutex', 'deadlock', 'recursion', 'recursive', 'polymorphism',
    'encapsulation', 'currying', 'memoization', 'monad', 'vtable', 'singleton', 'iterator', 'constructor', 'pointer', 'pointers',
    'vim', 'emacs', 'lambda', 'recursión', 'recursividad', 'récursivité', 'rekursion', 'ricorsione', 'recursão', 'рекурсия',
    'puntero', 'pointeur', 'zeiger', 'puntatore', 'ponteiro', 'указатель', 'polimorfismo', 'polymorphisme', 'polymorphismus',
    'полиморфизм', 'tupla', 'tupel', 'кортеж', 'мьютекс', 'interfaz', 'интерфейс', '递归', '指针', '多态', '元组', '闭包', '再帰',
    '재귀', '포인터', '다형성',
    // the same in the other languages, by the two words that name the concept where each alone is
    // everyday (a loop of hair, a class at school, a painting)
    'hashtable', 'hash table', 'hash tables', 'tabla hash', 'tabela hash', 'tabella hash', 'hachage', 'hashtabelle',
    'bucle for', 'bucle while', 'boucle for', 'boucle while', 'ciclo for', 'ciclo while', 'laço for', 'цикл for',
    'clase abstracta', 'classe abstraite', 'abstrakte klasse', 'classe abstrata', 'classe astratta', 'абстрактный класс',
    '哈希', '链表', '数组', '二叉', '编程', '编译', 'programmation', 'programmierung', 'programação', 'programmazione', 'программирование',
    // other languages
    'código', 'codigo', 'función', 'funcion', 'programación', 'programa', 'consulta', 'servidor', 'base', 'datos', 'variable',
    'script', 'error', 'hilo', 'proceso', 'fonction', 'requête', 'serveur', 'données', 'programme', 'erreur', 'processus',
    'funktion', 'abfrage', 'fehler', 'skript', 'klasse', 'datenbank', 'programm', 'umgebungsvariablen', 'funzione', 'codice',
    'errore', 'função', 'funcao', 'consulta', 'erro', 'código', 'код', 'функцию', 'функция', 'функции', 'ошибка', 'ошибку',
    'запрос', 'сервер', 'скрипт', 'класс', 'коммит', 'код', 'поток', 'процесс', 'переменные', 'кода', 'коде',
    '코드', '함수', '에러', '오류', '쿼리', '스크립트', '서버', '프로세스', '스레드', '변수',
    'الكود', 'دالة', 'خطأ', 'استعلام', 'بايثون', 'البرمجة', 'कोड', 'फ़ंक्शन', 'एरर', 'प्रोग्राम',
    '代码', '函数', '报错', '错误', '脚本', '查询', '数据', '线程', '进程', '变量', '提交', '部署', '服务',
    // katakana pairs only from words with no everyday look-alike: コー, ラー, ット, ッド... are as
    // much coffee, ramen, tickets and beds as code, errors, commits and threads
    '関数', 'エラ', 'リプ', 'プト', 'クエ', 'ロセ',
  ],
  math: [
    'solve', 'equation', 'equations', 'calculate', 'compute', 'prove', 'proof', 'derivative', 'integral', 'integrate', 'differentiate',
    'limit', 'probability', 'chance', 'percent', 'percentage', 'average', 'mean', 'median', 'variance', 'deviation', 'sum', 'product',
    'fraction', 'ratio', 'area', 'volume', 'perimeter', 'radius', 'triangle', 'circle', 'angle', 'angles', 'polygon', 'matrix',
    'determinant', 'eigenvalues', 'vector', 'theorem', 'prime', 'primes', 'factor', 'factorial', 'roots', 'quadratic', 'algebra',
    'calculus', 'geometry', 'statistics', 'math', 'maths', 'mathematical', 'formula', 'divisible', 'divide', 'multiply', 'square',
    'cube', 'root', 'log', 'logarithm', 'exponent', 'interest', 'km', 'speed', 'sequence', 'series', 'convergence',
    'resuelve', 'ecuación', 'calcula', 'calcular', 'demuestra', 'derivada', 'integral', 'probabilidad', 'área', 'triángulo',
    'résous', 'équation', 'calcule', 'montre', 'dérivée', 'intégrale', 'probabilité', 'aire', 'löse', 'gleichung', 'berechne',
    'beweise', 'ableitung', 'wahrscheinlichkeit', 'fläche', 'resolva', 'equação', 'calcule', 'prove', 'probabilidade',
    'risolvi', 'equazione', 'calcola', 'dimostra', 'derivata', 'probabilità', 'реши', 'уравнение', 'найди', 'производную',
    'докажи', 'вероятность', 'площадь', 'сколько', 'посчитай', '방정식', '확률', '넓이', '도함수', '풀어', 'المعادلة', 'احتمال',
    'مساحة', 'احسب', 'समीकरण', 'क्षेत्रफल', 'हल', 'प्रतिशत', 'denklemini', 'vergelijking',
    '方程', '概率', '面积', '导数', '积分', '证明', '计算', '多少', '求解', '解方', '微分', '確率', '面積', '証明', '方程', '計算', '何個',
  ],
  translate: [
    'translate', 'translation', 'translated', 'mean', 'means', 'meaning', 'french', 'spanish', 'german', 'japanese',
    'italian', 'portuguese', 'korean', 'mandarin', 'chinese', 'russian', 'arabic', 'hindi', 'dutch', 'english', 'pronounce',
    'traduce', 'traducir', 'traduis', 'traduire', 'übersetze', 'übersetzen', 'traduza', 'traduci', 'переведи', 'перевод',
    'inglés', 'anglais', 'englische', 'englisch', 'inglês', 'inglese', 'английски', 'dice', 'sagt', 'diz',
    '翻译', '英语', '英文', '翻訳', '英語', '번역', '영어', 'ترجم', 'अनुवाद',
    // "say" asks for a wording only after a speaker ("how do you say"); alone it is an everyday
    // command ("Say hello.")
    'you say', 'i say', 'to say', 'we say', 'they say',
  ],
};
