package search

import (
	"path"
	"regexp"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"unicode"

	"github.com/kljensen/snowball/english"
)

// Terms splits text into search terms: runs of letters and digits
// (snake_case split too), lower-cased, the domain's phrases
// joined into one term ("pull request" and "PR" both become "pr"; see
// vocab.go), each word reduced to its stem, filler words dropped.
func Terms(text string) []string { return terms(text, false) }

// identTerms are the terms of an identifier such as an argument's name,
// camelCase split ("maxResults" is "max results"). Prose is not split so:
// "GitHub" and "JavaScript" are one word each.
func identTerms(text string) []string { return terms(text, true) }

func terms(text string, camel bool) []string {
	words := words(text, camel)
	out := make([]string, 0, len(words))
	for i := 0; i < len(words); {
		if canon, n := phraseAt(words[i:]); n > 0 {
			if canon != filler {
				out = append(out, canon)
			}
			i += n
			continue
		}
		w := words[i]
		i++
		if stopWords[w] {
			continue
		}
		out = append(out, w)
	}
	return out
}

// words are text's words, lower-cased and stemmed, stop words kept (a
// phrase such as "log in" needs them); camelCase split when camel.
func words(text string, camel bool) []string {
	var out []string
	start := -1
	var prev rune
	for i, r := range text {
		inWord := unicode.IsLetter(r) || unicode.IsDigit(r)
		// camelCase: a capital after a small letter starts a word.
		if start >= 0 && (!inWord || camel && unicode.IsUpper(r) && unicode.IsLower(prev)) {
			out = append(out, Stem(strings.ToLower(text[start:i])))
			start = -1
		}
		if inWord && start < 0 {
			start = i
		}
		prev = r
	}
	if start >= 0 {
		out = append(out, Stem(strings.ToLower(text[start:])))
	}
	return out
}

// stems caches Stem: tool texts repeat a small vocabulary, and queries
// reuse it. It holds at most maxStems words, so that a server asked
// unseen words for hours does not grow.
var (
	stems     sync.Map // string → string
	stemsHeld atomic.Int64
	maxStems  = int64(1 << 16)
)

// Stem reduces a lower-case word to its stem (the Snowball English
// stemmer, after British spellings are made American), so that "tests",
// "testing" and "tested" meet, and "summarise" meets "summarize". Words
// the stemmer would merge with another of different meaning keep their
// own stem ("containers" is not "contains").
func Stem(w string) string {
	if s, ok := stems.Load(w); ok {
		return s.(string)
	}
	s := stem(w)
	if len(w) <= 32 && stemsHeld.Load() < maxStems {
		if _, had := stems.LoadOrStore(w, s); !had {
			stemsHeld.Add(1)
		}
	}
	return s
}

func stem(w string) string {
	if s, ok := ownStems[w]; ok {
		return s
	}
	if len(w) <= 2 || !isASCIIWord(w) {
		return w
	}
	return english.Stem(american(w), false)
}

func isASCIIWord(w string) bool {
	for i := 0; i < len(w); i++ {
		if c := w[i]; c >= 0x80 {
			return false
		}
	}
	return true
}

// ownStems are words whose Snowball stem would join a word of another
// meaning, or miss one of the same.
var ownStems = map[string]string{
	"container": "container", "containers": "container", "containerized": "container", "containerised": "container",
	"settings": "setting", "setting": "setting",
	"data": "data", "datum": "data",
	"news": "news",
	// A box's state, not the verb: "is it checked" is not "check it".
	"checked": "checked", "unchecked": "unchecked", "ticked": "checked", "unticked": "unchecked",
	"ps": "ps", "pr": "pr", "prs": "pr", "ci": "ci", "os": "os", "ms": "ms",
	"cookies": "cookie", "cookie": "cookie",
	"logs": "log", "log": "log", "logging": "log", "logged": "log",
	"images": "image", "image": "image",
	"values": "value", "value": "value",
	"queries": "query", "query": "query", "queried": "query", "querying": "query",
	"redis":  "redis",
	"status": "status", "statuses": "status",
	"analysis": "analyz", "analyses": "analyz",
	"summary": "summar", "summaries": "summar",
	"generator": "generat",
	"timing":    "timing", "timings": "timing",
	"general": "general", "generally": "general",
	"internal": "internal", "international": "international", "interval": "interval", "intervals": "interval",
	"university": "university", "universal": "universal",
}

// british endings and their American spelling, for the words agents
// write both ways.
var britishStems = []string{"analy", "summar", "priorit", "normal", "organ", "initial", "serial", "sanit", "optim",
	"visual", "recogn", "custom", "final", "author", "minim", "maxim", "synchron", "categor", "parallel",
	"container", "util", "special", "standard", "memor", "emphas", "character", "random", "stabil", "token"}

// american spells analyse, summarise, prioritised as analyze, summarize,
// prioritized.
func american(w string) string {
	for _, suf := range [...][2]string{{"ysing", "yzing"}, {"ysed", "yzed"}, {"yse", "yze"}, {"isation", "ization"}, {"ising", "izing"}, {"ised", "ized"}, {"ises", "izes"}, {"ise", "ize"}, {"our", "or"}} {
		base, ok := strings.CutSuffix(w, suf[0])
		if !ok {
			continue
		}
		if suf[0] == "our" {
			if base == "col" || base == "behavi" || base == "flav" || base == "hon" {
				return base + suf[1]
			}
			return w
		}
		// analy+se, summar+ise: the base, or the base and its y.
		if slices.Contains(britishStems, base) || slices.Contains(britishStems, base+"y") {
			return base + suf[1]
		}
		return w
	}
	return w
}

// stopWords carry no meaning for finding a tool, stemmed as Terms stems
// the words.
var stopWords = map[string]bool{}

func init() {
	for _, w := range strings.Fields(`a an the to of for in on at by with from into onto and or but is are was were be been being
		i me my we our us you your it its this that these those there here some any all every each they them their theirs
		want wanna need like would could should can may might must will shall please let lets how do does did who whom whose
		when where whether if then than so just also only very really actual actually
		get got give gives have has had having use using used something thing things way ok okay hey hi
		s t d m ll ve re
		as about via per`) {
		stopWords[Stem(w)] = true
	}
}

// Values written in a query are what the task works on, not what it is:
// the words inside "./tmp/cache", "out/report-old.html" or 'hello world'
// say nothing of which tool is wanted, but that they are a path, a file
// or a quoted text does. values takes them out of a query and says what
// kind each is: a path or a file name is a file, a URL a web address,
// "#id" or ".class" an element of a page, "name:tag" an image,
// "session:abc" a key, "{{name}}" a template's placeholder, 2024-02-15 a
// date, v1.2.0 a version.
var (
	urlValue      = regexp.MustCompile(`^(?:[a-z][a-z0-9+.-]*://\S+|www\.\S+|localhost(?::\d+)?(?:/\S*)?|(?:\d{1,3}\.){3}\d{1,3}(?::\d+)?(?:/\S*)?)$`)
	hostValue     = regexp.MustCompile(`^[a-z0-9-]+(?:\.[a-z0-9-]+)*\.(?:com|org|net|io|dev|app|test|example|local|internal|co)(?::\d+)?(?:/\S*)?$`)
	knownFile     = regexp.MustCompile(`^[\w./~@*-]*\.(?:json|ya?ml|xml|csv|tsv|txt|md|html?|png|jpe?g|gif|svg|webp|pdf|zip|tar|gz|tgz|sql|db|sqlite3?|log|env|toml|ini|m?js|cjs|tsx?|jsx|go|py|sh|har|lock|conf|cfg|tmpl|tpl|rb|java|rs|css|scss|xlsx?)$`)
	pathValue     = regexp.MustCompile(`^(?:~|\.{1,2})?/[\w.@*/-]*$|^[\w.@*-]+/$|^[\w@*-]+(?:/[\w.@*-]+){2,}/?$|^[\w.@*-]*[._\d-][\w.@*-]*/[\w.@*/-]+$|^[\w.@*-]+/[\w@*-]*[._\d-][\w.@*/-]*$`)
	elemValue     = regexp.MustCompile(`^(?:a|abbr|article|aside|button|canvas|dialog|div|footer|form|h[1-6]|header|iframe|img|input|label|li|main|nav|ol|option|p|section|select|span|svg|table|td|textarea|th|tr|ul|video)?[#.][a-zA-Z][\w-]*(?:[.#][\w-]+)*$|^\[[\w-]+(?:[~|^$*]?=.*)?\]$`)
	imageValue    = regexp.MustCompile(`^[a-z0-9][\w./-]*:(?:\d[\w.-]*|latest|alpine|slim|stable|edge|bookworm|bullseye|jammy|noble)$`)
	jsValue       = regexp.MustCompile(`^(?:window|document|navigator|location|localStorage|sessionStorage|performance)\.\w|^\w+\.\w+\(.*\)`)
	base64Value   = regexp.MustCompile(`^[A-Za-z0-9+/_-]{16,}={0,2}$`)
	specFile      = regexp.MustCompile(`\.(?:spec|test)\.[jt]sx?$`)
	envValue      = regexp.MustCompile(`^[A-Z][A-Z0-9_]*=\S*$`)
	keyValue      = regexp.MustCompile(`^\w[\w.-]*:[\w.:*{}-]*$`)
	templateValue = regexp.MustCompile(`\{\{.*\}\}|\$\{.*\}`)
	// Values of several words: a JSON object or array, an SQL statement,
	// a Redis command (its verb in capitals, then a key, not a URL), a
	// regular expression.
	jsonValue  = regexp.MustCompile(`\{[^{}]*(?:\{[^{}]*\}[^{}]*)*\}|\[[^\[\]]*,[^\[\]]*\]`)
	sqlValue   = regexp.MustCompile(`\b(?:SELECT\s[\s\S]*?\bFROM|INSERT\s+INTO|UPDATE\s+\w+\s+SET|DELETE\s+FROM|(?:CREATE|ALTER|DROP)\s+(?:TABLE|INDEX)|BEGIN;|COMMIT)\b[^;'"]*;?`)
	redisValue = regexp.MustCompile(`(?:^|\s)(?:SET|GET|DEL|KEYS|HSET|HGET|HGETALL|EXPIRE|TTL|INCR|LPUSH|RPUSH|LRANGE|SCAN|FLUSHDB|FLUSHALL)\s+([\w:*.{}-]+)`)
	// shorthandWith is "w/" written for "with".
	shorthandWith = regexp.MustCompile(`(^|\s)w/(\s|$)`)
	// webURL begins a page's or an API's URL; httpCall is an HTTP method
	// in capitals and the URL or path it calls.
	webURL       = regexp.MustCompile(`^(?i)https?:`)
	httpCall     = regexp.MustCompile(`(?:^|\s)(?:GET|POST|PUT|PATCH|DELETE|HEAD|OPTIONS)\s+(?:https?://|/)`)
	regexValue   = regexp.MustCompile(`^\^\S*\$$|\\[dwsb]`)
	dateValue    = regexp.MustCompile(`^\d{4}-\d{2}-\d{2}(?:[t ]\d{2}:\d{2}(?::\d{2})?)?z?$`)
	versionValue = regexp.MustCompile(`^v\d+(?:\.\d+)+$|^\d+\.\d+\.\d+$`)
	// A bound on an amount with its unit: "under 800 ms", "at or under
	// 500ms", "between 0 and 10 %" (a count of things, "between 1 and 24
	// cards", is assert_count's).
	boundValue  = regexp.MustCompile(`(?i)\b(?:under|below|above|over|within|between|exceed(?:s|ing)?|at\s+(?:or\s+(?:under|below|above|over)\s+|most\s+|least\s+)|(?:no|not|less|more|fewer|greater|lower|higher)\s+than)\s*[$€£]?\d[\d.,]*(?:\s*(?:and|-|to)\s*[$€£]?\d[\d.,]*)?\s*(?:ms|s|secs?|seconds?|minutes?|mins?|%|percent|[kmg]i?b|px|€|\$|usd|eur)\b`)
	quotedValue = regexp.MustCompile("(?:^|[\\s(\\[])(?:'[^']+'|\"[^\"]+\"|`[^`]+`|‘[^’]+’|“[^”]+”)(?:$|[\\s.,;:?!)\\]])")
)

// plainWord: letters, digits, apostrophes and inner hyphens only, no value.
func plainWord(v string) bool {
	for i := 0; i < len(v); i++ {
		c := v[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '\'' || c == '-' && i > 0) {
			return false
		}
	}
	return v != "" && !(len(v) == 10 && v[4] == '-') // 2024-02-15 is a date
}

// values splits a query into its words and the kinds of the values it
// holds.
func values(query string) (words string, kinds []string) {
	words, kinds, _ = valuesAndNames(query)
	return words, kinds
}

// valuesAndNames is values, with the words the values are named by: of
// order.schema.json "order schema", of feature:newCheckout "feature new
// checkout", of docker-compose.test.yml "docker compose test". A file's
// or a key's name says a little of what it is for.
func valuesAndNames(query string) (words string, kinds []string, names string) {
	var kept, named []string
	if strings.ContainsAny(query, "{[") {
		for _, v := range []struct {
			re   *regexp.Regexp
			kind string
		}{{jsonValue, "json"}} {
			query = v.re.ReplaceAllStringFunc(query, func(m string) string {
				kind := v.kind
				switch {
				case kind == "json" && strings.HasPrefix(m, "["):
					kind = "array"
				case kind == "json" && !strings.Contains(m, ":"):
					return m // {{name}}, not an object
				}
				if !slices.Contains(kinds, kind) {
					kinds = append(kinds, kind)
				}
				return " "
			})
		}
	}
	// A Redis command or an SQL statement stays in the words (its verb
	// says which tool) and adds its kind; both begin with a word in
	// capitals.
	if capitalWord(query) {
		if slices.ContainsFunc(redisValue.FindAllStringSubmatch(query, -1), func(m []string) bool { return !webURL.MatchString(m[1]) }) {
			kinds = append(kinds, "redis") // not GET https://...: an HTTP call
		}
		if httpCall.MatchString(query) {
			kinds = append(kinds, "http") // GET /api/users/42, POST https://...: a request made
		}
		if sqlValue.MatchString(query) {
			kinds = append(kinds, "sql")
			// SQL with no SQLite file or name is PostgreSQL's, the
			// database a request means when it names none.
			if !sqliteNamed.MatchString(query) {
				kinds = append(kinds, postgresKind)
			}
		}
	}
	if boundValue.MatchString(query) {
		kinds = append(kinds, Stem("range")) // under 800 ms, at least 3: a value's range
	}
	// A quoted value still says what kind it is when it is a URL.
	quotes := strings.ContainsAny(query, "'\"`‘“")
	if quotes {
		for _, q := range quotedValue.FindAllString(query, -1) {
			if v := strings.Trim(strings.TrimSpace(q), "'\"`‘’“”.,;:?!()[]"); urlValue.MatchString(strings.ToLower(v)) || strings.HasPrefix(v, "/") && strings.ContainsAny(v, "?#") {
				kinds = append(kinds, "url")
			} else if templateValue.MatchString(v) {
				kinds = append(kinds, templateKind) // 'Hi {{name}}': a template to fill
			}
		}
	}
	if strings.Contains(query, "w/") {
		query = shorthandWith.ReplaceAllString(query, "${1}with${2}") // w/ name=Kim: "with", not a folder
	}
	if strings.Contains(query, "second") {
		query = ordinalSecond.ReplaceAllString(query, "${1}") // "a second tab" is not a time
	}
	if strings.ContainsAny(query, "12345") && statusCode(query) {
		kinds = append(kinds, statusKind) // "is 425 something I should retry on?": an HTTP status
	}
	if quotes {
		query = quotedValue.ReplaceAllString(query, " ")
	}
	for _, f := range strings.Fields(query) {
		v := strings.Trim(f, `,;:?!()"'`+"`")
		if plainWord(v) && !WindowSize.MatchString(v) {
			kept = append(kept, f)
			continue
		}
		if SlashedList(v) {
			kept = append(kept, strings.Split(v, "/")...) // p50/p95, 4xx/5xx: a list, not a path
			continue
		}
		lower := strings.ToLower(v)
		kind := ""
		switch {
		case v == "":
		case base64Value.MatchString(v) && strings.ContainsAny(v, "0123456789") && strings.ToLower(v) != v && strings.ToUpper(v) != v:
			kind = base64Kind // cWFfdXNlcjpXaW50ZXIyMDI0IQ==, eyJ...: an encoded value
		case strings.HasPrefix(lower, ".github/"):
			kind = githubKind // .github/workflows/e2e.yml: a repository's
		case specFile.MatchString(lower):
			kind = specKind // login.spec.ts: a Playwright test
		case jsValue.MatchString(v):
			kind = jsKind // document.querySelectorAll('a').length: the page's script
		case envValue.MatchString(v):
			kind = envKind // POSTGRES_PASSWORD=test: a setting, not a database's password
		case templateValue.MatchString(v):
			kind = templateKind
		case regexValue.MatchString(v):
			kind = "regex"
		case WindowSize.MatchString(lower):
			kind = viewportKind // 375x812: a window's size
		case knownFile.MatchString(lower), DotFile(lower):
			kind = "file"
		case DatabaseOf(lower) != "":
			kind = Terms(DatabaseOf(lower))[0] // postgres://..., redis://...: that database
		case urlValue.MatchString(lower), hostValue.MatchString(lower):
			kind = "url"
		case dateValue.MatchString(lower):
			kind = "date"
		case versionValue.MatchString(lower):
			kind = "version"
		case elemValue.MatchString(v):
			kind = "element"
		case pathValue.MatchString(v):
			kind = "file"
		case imageValue.MatchString(lower):
			kind = "image"
		case keyValue.MatchString(v) && !strings.HasSuffix(v, ":"):
			kind = "key"
		}
		if kind == "" {
			kept = append(kept, f)
			continue
		}
		kinds = append(kinds, kind)
		if kind == "file" || kind == "key" || kind == "image" {
			named = append(named, nameWords.FindAllString(strings.TrimSuffix(v, path.Ext(v)), -1)...)
		}
		if kind == "file" && dbFileValue.MatchString(lower) {
			kinds = append(kinds, sqliteKind) // app.db, test.sqlite: a SQLite database
		}
		if kind == "file" && (strings.HasSuffix(v, "/") || v == "." || v == "..") {
			kinds = append(kinds, dirKind) // test-results/: a folder
		}
		if kind == "file" && strings.HasSuffix(lower, ".pdf") {
			kinds = append(kinds, "pdf") // a PDF is made by printing a page
		}
	}
	return strings.Join(kept, " "), kinds, strings.Join(named, " ")
}

// WindowSize is a window's size, width x height: 1280x800, 375x812.
var WindowSize = regexp.MustCompile(`^(\d{3,4})x(\d{3,4})$`)

// dotFile is a project's hidden file: .env, .env.test, .npmrc (not a
// selector's class, .toast).
var dotFile = regexp.MustCompile(`^\.(?:env|npmrc|nvmrc|gitignore|dockerignore|editorconfig|prettierrc|eslintrc|babelrc|tool-versions)(?:\.[\w-]+)*$`)

// DotFile says whether v names a project's hidden file (.env.test).
func DotFile(v string) bool { return dotFile.MatchString(v) }

// sqliteNamed names SQLite or a file of one.
var sqliteNamed = regexp.MustCompile(`(?i)sqlite|\.db\b`)

// ordinalSecond is "second" that counts, not a time: "a second tab",
// "the second session".
var ordinalSecond = regexp.MustCompile(`(?i)\b(a|the|my|our)\s+second\b`)

// statusValue is a number that may be an HTTP status code: 1xx to 5xx
// alone, and the word after it.
var statusValue = regexp.MustCompile(`(?:^|[\s(])([1-5]\d\d)(?:[\s?!)]+|[.,](?:\s|$)|$)(\w*)`)

// notStatus are words after a number that make it an amount (500 ms,
// 404 items), not a status.
var notStatus = wordSet(`ms s sec secs second seconds min mins minute minutes h hour hours day days px kb mb gb k
	item items row rows user users times request requests record records line lines byte bytes char chars character characters
	word words test tests page pages order orders x of percent`)

// numberedThings are words after which a number names one of them (PR
// 418, issue 503, job 201), not a status.
var numberedThings = wordSet(`pr prs pull request issue issues ticket tickets job jobs run runs build builds order orders task tasks bug bugs story line lines port step steps room table`)

// AmountUnit says whether a word after a number makes it an amount (500
// ms, 200 chars, 404 items) rather than an HTTP status.
func AmountUnit(word string) bool { return notStatus[strings.ToLower(word)] }

// statusCode says whether query holds an HTTP status code.
func statusCode(query string) bool {
	for _, m := range statusValue.FindAllStringSubmatchIndex(query, -1) {
		before := strings.Fields(strings.TrimRight(query[:m[2]], " #"))
		if notStatus[strings.ToLower(query[m[4]:m[5]])] || len(before) > 0 && numberedThings[strings.ToLower(before[len(before)-1])] {
			continue
		}
		return true
	}
	return false
}

// dbURL is a database's URL, by its scheme.
var dbURL = regexp.MustCompile(`^(postgres|redis|sqlite|mysql)(?:ql)?s?://\S`)

// DatabaseOf is the database a URL is of by its scheme (postgres for
// postgresql://, redis for rediss://), or "" for any other.
func DatabaseOf(url string) string {
	if m := dbURL.FindStringSubmatch(strings.ToLower(url)); m != nil {
		return m[1]
	}
	return ""
}

// dbFileValue is a SQLite database's file name.
var dbFileValue = regexp.MustCompile(`\.(?:db|sqlite3?)$`)

// slashedList is a list written with slashes of names that hold a number
// (p50/p95/p99, 4xx/5xx, 200/201): words, not a path.
var slashedList = regexp.MustCompile(`^[a-zA-Z]?\d+[a-zA-Z]*(?:/[a-zA-Z]?\d+[a-zA-Z]*)+$`)

// SlashedList says whether v is a list written with slashes, not a path:
// names that hold a number (p50/p95, 4xx/5xx), or words written in
// pairs (lat/lng, pass/fail, build/test).
func SlashedList(v string) bool {
	if slashedList.MatchString(v) {
		return true
	}
	parts := strings.Split(strings.ToLower(v), "/")
	return len(parts) == 2 && pairWords[parts[0]] && pairWords[parts[1]]
}

// pairWords are words written in pairs with a slash.
var pairWords = wordSet(`lat lng lon long latitude longitude pass fail passed failed read write and or yes no on off true false
	min max start end input output request response req res x y width height key value name email user password
	username first last get set put post build test tests lint unit e2e health exit status state log logs error errors warning warnings a b
	route routes mock mocks stub stubs container containers network networks volume volumes image images`)

// nameWords are the words of a value's name.
var nameWords = regexp.MustCompile(`[A-Za-z][a-z]+|[A-Z]+`)

// A question ("what PRs are open?", "did my build get retried?", "show me
// recently merged pull requests") asks to see, not to change: tools whose
// names change something (gh_pr_create, gh_pr_merge, task_cancel) count
// less for it, unless it also asks for a change ("... and merge it").
var (
	// changeVerbs are the name parts of tools that change something, as
	// written (gh_workflow_runs lists runs, it runs nothing).
	changeVerbs = wordSet(`create merge delete del rm remove set write run stop cancel restart flush register unregister
		disconnect close submit dispatch dissolve rollback snapshot share cleanup build pull exec seed comment review restore
		backup move copy mkdir chmod chown zip unzip launch kill upload`)
	// askWords start a question or a request to see.
	askWords = wordSet(`what which who whose where when how is are was were does do did has have any anything show list tell see view display`)
	// changeWords ask for a change when they start a step.
	changeWords = wordSet(`create merge delete remove rm set write run stop cancel restart flush register unregister disconnect close
		submit dispatch dissolve rollback snapshot share clean cleanup build pull exec seed comment review restore backup move copy
		mkdir chmod chown zip unzip launch kill upload make add put drop start trigger approve push cut spin tear bring`)
	// stepWords come before a step's verb.
	stepWords = wordSet(`and then to please also , ; : we you i can could would will should must`)
	// modalWords and subjectWords begin a request put as a question.
	modalWords   = wordSet(`can could would will should may shall`)
	subjectWords = wordSet(`we you i someone somebody`)
)

// asks says whether query is a question or a request to see, asking for
// no change.
func asks(query string) bool {
	fields := strings.FieldsFunc(strings.ToLower(query), func(r rune) bool { return r == ' ' || r == '\t' || r == '\n' })
	if len(fields) == 0 {
		return false
	}
	first := strings.Trim(fields[0], `,.;:?!"'`)
	if !askWords[first] && !strings.HasSuffix(strings.TrimSpace(query), "?") {
		return false
	}
	// "Can we stop that job?", "could you open a PR?": a request put as
	// a question.
	if len(fields) > 1 && modalWords[first] && subjectWords[strings.Trim(fields[1], `,.;:?!"'`)] {
		return false
	}
	for i, f := range fields {
		w := strings.Trim(f, `,.;:?!"'`)
		if !changeWords[w] {
			continue
		}
		if i == 0 || stepWords[strings.Trim(fields[i-1], `"'`)] || strings.ContainsAny(fields[i-1][len(fields[i-1])-1:], ",.;:?!") {
			return false
		}
	}
	return true
}

func wordSet(s string) map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(s) {
		m[w] = true
	}
	return m
}

// The verb a request begins with says what it wants done ("stop the
// container", "remove the container old-web", "please merge it"): a tool
// whose name holds that verb, or a word of its meaning, gets a bonus.
var (
	// leadSkip are the words before a request's verb.
	leadSkip = wordSet(`please pls can could would will we you i to want need let lets let's us now ok okay so just also then first quickly go ahead kindly`)
)

// makeLeads make a thing when an article follows: "open a pull request"
// creates one where "open pull requests" are a state; articles are those
// articles.
var (
	makeLeads = wordSet(`open file raise log`)
	articles  = wordSet(`a an new another`)
)

// leadTerms are the terms of the verb query begins with, by weight: the
// verb's own term 1, its related words weightNear; nil when it begins
// with no verb this way (a question, a noun).
func leadTerms(query string) map[string]float64 {
	fields := strings.Fields(strings.ToLower(query))
	for i, f := range fields {
		w := strings.Trim(f, `,.;:?!"'()`)
		if leadSkip[w] {
			continue
		}
		if askWords[w] || w == "" {
			return nil
		}
		if makeLeads[w] && i+1 < len(fields) && articles[fields[i+1]] {
			w = "create" // "open a pull request", "file an issue": make one
		}
		ts := Terms(w)
		if len(ts) == 1 && i+1 < len(fields) {
			if two := Terms(w + " " + strings.Trim(fields[i+1], `,.;:?!"'()`)); len(two) == 1 {
				ts = two // "back up", "tear down": one verb of two words
			}
		}
		if len(ts) != 1 {
			return nil
		}
		out := map[string]float64{ts[0]: 1}
		for _, r := range related[ts[0]] {
			out[r] = max(out[r], weightNear)
		}
		return out
	}
	return nil
}

// purposeStart begins what a request is for, after what it asks: "so
// the wizard starts over", "so I can attach it", "because".
var purposeStart = regexp.MustCompile(`(?i)(?:,\s*|\s)(?:so that|so (?:i|we|you|they|the|it|that|no|our)|in order to|because|since|to learn|to find out|to make sure|to confirm|to see (?:if|whether|which|what))\s`)

// purpose splits query into what it asks and what that is for.
func purpose(query string) (what, why string) {
	if m := purposeStart.FindStringIndex(query); m != nil && len(strings.Fields(query[:m[0]])) >= 3 {
		return query[:m[0]], query[m[0]:]
	}
	return query, ""
}

// negation begins what a request says not to do, up to a mark: "don't
// release it yet", "no click", "without going through the login form".
var negation = regexp.MustCompile(`(?i)\b(?:don'?t|do not|never|without|no)\s+([^,.;:!?()]*)`)

// negated splits query into what it asks and the words it says not to do.
func negated(query string) (what, not string) {
	var nots []string
	what = negation.ReplaceAllStringFunc(query, func(m string) string {
		nots = append(nots, negation.FindStringSubmatch(m)[1])
		return " "
	})
	return what, strings.Join(nots, " ")
}

// stepLabel is a label a request begins with that says where it stands
// in a plan or who speaks ("Next step:", "Step 3:", "Agent:"), not what
// it wants done.
var stepLabel = regexp.MustCompile(`(?i)^\s*(?:(?:next|first|then|last|final)\s+step|step\s*\d+|agent|todo|now|next|then)\s*[:\-–—]\s+`)

// unlabel is query without the label it begins with.
func unlabel(query string) string {
	if m := stepLabel.FindStringIndex(query); m != nil {
		return query[m[1]:]
	}
	return query
}

// capitalWord says whether s holds a word of three or more capitals.
func capitalWord(s string) bool {
	n := 0
	for i := 0; i < len(s); i++ {
		if c := s[i]; c >= 'A' && c <= 'Z' {
			if n++; n == 3 {
				return true
			}
		} else {
			n = 0
		}
	}
	return false
}
