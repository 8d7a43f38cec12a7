package intent

import (
	"path"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/barrhawk/barrhawk/internal/search"
)

// A request is read as a list of tokens, then cut into steps (clauses) at
// "then", at sentence ends, and at "and" or a comma that a verb follows:
// "open the page, add a product and check the cart" is three steps, "at
// mobile and desktop sizes" one.

// kind is what a token is.
type kind uint8

const (
	word      kind = iota // lower case, as written
	number                // digits, or a number word (two, ten)
	quoted                // text in quotes, as written
	link                  // a URL, or a host such as localhost:3000/login
	urlPath               // a path such as /settings or /api/health
	file                  // a file name such as schema.json or avatar.png
	repoRef               // owner/name
	punct                 // , . ; : ? !
	script                // a JavaScript expression: window.__APP__, document.title, fn()
	pattern               // a regular expression: ^[A-Z]{3}-\d{4}$
	statement             // SQL written out: SELECT id FROM users WHERE ...; UPDATE ...
	selector              // an element of a page: .due-date-banner, #q, button.primary, [data-testid=x]
)

type token struct {
	kind kind
	text string // as written (a word in lower case)
	raw  string // a word as written
	stem string // a word's stem (search.Stem), for matching
	num  int    // a number's value
	// method: the word is an HTTP method written in capitals (GET).
	method bool
}

// clause is one step of a request: its words as written and its tokens.
type clause struct {
	words  string
	tokens []token
	set    map[string]bool // stems and two-word phrases ("log in")
	about  domain          // what its own words are about
	// dbs are the databases its words name, in a step about something
	// else too ("the offline queue is a sqlite file").
	dbs domain
	// then: the clause follows "then", whose verb it may leave out
	// ("run lint, then unit tests").
	then bool
}

func (c *clause) has(trigger string) bool { return c.set[trigger] }

// hasAny reports whether the clause holds one of triggers.
func (c *clause) hasAny(triggers []string) bool {
	for _, t := range triggers {
		if c.set[t] {
			return true
		}
	}
	return false
}

var (
	jsExpr    = regexp.MustCompile(`^(?:window|document|navigator|performance|location|localStorage|sessionStorage)\.[\w$.]|^[\w$.]+\.[\w$]+\(.*\)$`)
	hostLike  = regexp.MustCompile(`^(?:[a-z0-9-]+\.)+(?:com|org|net|io|dev|app|local|test|internal|example|co|ai)(?::\d+)?(?:/\S*)?$`)
	localHost = regexp.MustCompile(`^(?:localhost|127\.0\.0\.1|0\.0\.0\.0)(?::\d+)?(?:/\S*)?$`)
	fileName  = regexp.MustCompile(`^[\w.~/*-]*[\w*-]\.(?:json|ya?ml|xml|csv|tsv|txt|md|html?|png|jpe?g|gif|svg|webp|pdf|zip|tar|gz|tgz|sql|db|sqlite3?|log|env|toml|ini|js|mjs|ts|go|py|sh|har|trace|tpl|tmpl|j2|hbs|mustache|lock|cfg|conf|properties|xlsx|jsonl|ndjson|snap)$`)
	// regexLike is a regular expression written as one: anchored, or with
	// a character class and a quantifier.
	regexLike = regexp.MustCompile(`^\^\S+|^\S+\$$|\\[dwsDWSb]|\[[^\]]+\][*+?{]|^/\S*[\\\[(].*/[gimsuy]*$`)
	// imageNames are images everyone runs; name:tag of one is an image.
	imageNames   = wordSet(`postgres redis mysql mariadb mongo nginx node python golang alpine busybox ubuntu debian httpd rabbitmq memcached elasticsearch minio`)
	imageTag     = regexp.MustCompile(`^(?:\d[\w.-]*|latest|alpine|slim|[\w.-]*-alpine)$`)
	spawnID      = regexp.MustCompile(`^(?:sp|spawn)[_-][\w-]+$`)
	measureLike  = regexp.MustCompile(`^\d+(?:\.\d+)?(?:ms|s|sec|secs|m|min|h|kb|mb|gb|k|x)$`)
	dirLike      = regexp.MustCompile(`^[\w.-]*[a-zA-Z][\w.-]*(?:/[\w.-]+)*/$`) // test-results/, logs/2024/: a folder
	selectorLike = regexp.MustCompile(`^(?:(?:a|button|div|span|input|select|textarea|form|img|li|ul|ol|tr|td|th|table|nav|header|footer|section|main|h[1-6]|p|label|dialog)?(?:#[a-zA-Z_][\w-]*|\.[a-zA-Z_][\w-]+)(?:[.#][\w-]+|:[\w-]+(?:\([^)]*\))?)*|\[[\w-]+(?:[~|^$*]?=[^\]]*)?\])$`)
	instanceName = regexp.MustCompile(`^[a-z][a-z0-9]*(?:-[a-z][a-z0-9]*)+-\d{1,2}$|^(?:redis|postgres|pg|mysql|mariadb|mongo)-[a-z0-9]+(?:-[a-z0-9]+)*$`)      // compose names its containers project-service-1; redis-test, pg-fixture
	fsRoot       = regexp.MustCompile(`^/(?:srv|tmp|var|etc|opt|data|mnt|usr|root|ci|Users|workspace|builds)(?:/[\w.@*-]*)*$|^/home/[\w.@*-]+(?:/[\w.@*-]*)*$`) // a bare /home is a site's page
	relPath      = regexp.MustCompile(`^(?:\.{1,2}|~)/[\w./-]*\w[\w./-]*$`)
	keyLike      = regexp.MustCompile(`^\w[\w-]*(?::[\w.*?-]+)+$`)
	imageRef     = regexp.MustCompile(`^[a-z0-9][\w.-]*(?:/[\w.-]+)+:\w[\w.-]*$`)
	// isoDate is a date or a time written as ISO 8601 has it.
	isoDate = regexp.MustCompile(`^\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?)?$`)
	// identName is a name in code written in snake_case: csv_to_json.
	identName = regexp.MustCompile(`^[a-z][a-z0-9]*(?:_[a-z0-9]+)+$`)
	// pointAxis is one coordinate of a point on a page: x=320.
	pointAxis = regexp.MustCompile(`^[xy]=\d+$`)
	// listItem begins a line that is an item of a list: "- ", "* ", "1) ".
	listItem = regexp.MustCompile(`^[ \t]*(?:[-*•][ \t]|\d{1,2}[.)][ \t])`)
	// listMark numbers an item of a list: 1) 2. 3:
	listMark = regexp.MustCompile(`^\d{1,2}[).:]$`)
	// emailAddr is an e-mail address.
	emailAddr = regexp.MustCompile(`^[\w.+-]+@[\w-]+(?:\.[\w-]+)+$`)
	// envAssign is a setting given a value: NAME=value, ml_consent=all.
	// attrAssign is an element's attribute written with its value.
	attrAssign = regexp.MustCompile(`^(?:data-[\w-]+|aria-[\w-]+|alt|href|src|dir|rel|autocomplete|role|target|lang|loading|inputmode)=\S+$`)
	envAssign  = regexp.MustCompile(`^[A-Za-z_][\w.-]*=\S+$`)
	// issueRef is a pull request's or an issue's number: #497.
	issueRef = regexp.MustCompile(`^#\d+$`)
	// statusClass is a class of HTTP statuses: 4xx, 5xx.
	statusClass = regexp.MustCompile(`^[1-5]xx$`)
	// snapshotID is a snapshot's id: a name and a time in milliseconds.
	snapshotID = regexp.MustCompile(`^[a-z][\w-]*[_-]\d{10,}$|^\d{12,}$`)
	// columnRef is a table's column, maybe with a value: orders.status,
	// products.price=279.
	columnRef = regexp.MustCompile(`^[a-z][a-z_]*\.[a-z][a-z_]*(?:$|[=<>!])`)
	// promoCode is a code a shop's customer types: SPRING10, SAVE10.
	promoCode = regexp.MustCompile(`^[A-Z]{3,}\d{1,4}$`)
	// localImage is an image built here, named with a hyphen and tagged
	// (shop-api:qa, oakbench-api:dev); it is one where the clause speaks
	// of images or containers.
	localImage = regexp.MustCompile(`^[a-z0-9]+(?:-[a-z0-9]+)+:\w[\w.-]*$`)
	repoName   = regexp.MustCompile(`^[A-Za-z0-9][\w.-]*/[\w.-]*[A-Za-z0-9]$`)
)

// toPath before a path say it is where the page is or goes.
var toPath = wordSet(`to is s be at equals`)

// elementNouns after a quoted name make it an element's name.
var elementNouns = wordSet(`banner button bar link modal tab dialog popup chip icon menu dropdown checkbox section panel card carousel`)

// isCheckWord says whether t makes a check: a modal (should, must), or a
// state an element is checked for ("the burger is visible and .nav is
// hidden").
func isCheckWord(t token) bool { return t.kind == word && checkMakers[t.text] }

var checkMakers = wordSet(`should must shouldn visible hidden invisible enabled disabled ticked unticked checked unchecked`)

// segmentEnd is where the clause from i ends at the latest: the next
// mark.
func segmentEnd(tokens []token, i int) int {
	for j := i; j < len(tokens); j++ {
		if tokens[j].kind == punct {
			return j
		}
	}
	return len(tokens)
}

// passwordNext says whether the text after a slash begins with what
// looks like a password: a word with a digit or a sign in it (Test1234!,
// Adm1n!qa).
func passwordNext(rest string) bool {
	f := strings.Fields(rest)
	if len(f) == 0 {
		return false
	}
	w := strings.TrimRight(f[0], ",.;:)?")
	return len(w) >= 6 && strings.ContainsAny(w, "0123456789!#$%&*") && strings.ContainsFunc(w, unicode.IsLetter) && !strings.Contains(w, "/")
}

// roleLabel says whether the word at i names who speaks or acts ("as
// the agent", "as CS agent", "Agent:", "(agent planning)") rather than
// an agent to hand work to.
func roleLabel(tokens []token, i int) bool {
	for j := max(0, i-3); j < i; j++ {
		if tokens[j].kind == word && (tokens[j].text == "as" || tokens[j].text == "me") {
			return true // "as the agent", "next step for me (agent)"
		}
	}
	if i >= 1 && peopleAgents[tokens[i-1].text] {
		return true // "two front desk agents", "a support agent": people, not sub-agents
	}
	if i >= 2 && tokens[i-1].text == "an" && (tokens[i-2].text == "am" || tokens[i-2].text == "m") {
		return true // "I am an agent about to plan work"
	}
	if i+1 < len(tokens) {
		n := tokens[i+1]
		return n.kind == punct && n.text == ":" || n.kind == word && agentNotes[n.text]
	}
	return i == 0 // "Agent: create a squad ...": the word alone, before what it says
}

// agentNotes after "agent" say the agent speaks: "Agent plan:", "agent
// note", "(agent planning)".
var agentNotes = wordSet(`planning here note notes plan plans thinking log step`)

// yesNo begin a question answered yes or no.
var yesNo = wordSet(`is are does do did has have`)

// loginVerbs before "logged in" make it a step: get logged in, be
// signed in.
var loginVerbs = wordSet(`get gets getting be being stay stays still`)

// imageContext are the stems of words that make a name:tag an image.
var imageContext = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`image images docker container containers build built`) {
		m[search.Stem(w)] = true
	}
	return m
}()

// dbHosts are a host's first label that names its database.
var dbHosts = map[string]string{"redis": "redis", "pg": "postgres", "postgres": "postgres", "postgresql": "postgres", "db": "postgres"}

// camelCase is a name in code written in camel case: cartDraft.
var camelCase = regexp.MustCompile(`^[a-z]+[A-Z][A-Za-z0-9]*$`)

// camelWords are written in camel case and are no names in code.
var camelWords = wordSet(`localstorage sessionstorage indexeddb iphone ipad ipod macos ios ebay javascript typescript`)

// keyAssign is a key of a store set to a value: feature:beta=on.
var keyAssign = regexp.MustCompile(`^[A-Za-z][\w-]*:[\w:-]+=[^=\s]+$`)

// showWords say what a page shows.
var showWords = wordSet(`show shows showing display displays lists`)

// hyphenName is a name of words joined by hyphens (bb-old-pg,
// qa-search), and containerVerbs what is done to a container so named.
var (
	hyphenName = regexp.MustCompile(`^[a-z][a-z0-9]*(?:-[a-z0-9]+)+$`)
	// fileRemovers before a file remove it: "rm .auth/admin.json" is
	// a file's removal, not a saved login's.
	fileRemovers   = wordSet(`rm delete remove del`)
	containerVerbs = wordSet(`stop remove rm restart kill inspect start`)
)

// afterContainerVerb says whether a name after the tokens before it is a
// container's: it follows a verb done to containers, or "the" after one
// ("stop bb-old-pg", "remove the qa-mailpit container").
func afterContainerVerb(before []token) bool {
	n := len(before)
	return n > 0 && containerVerbs[before[n-1].text] || n > 1 && before[n-1].text == "the" && containerVerbs[before[n-2].text]
}

// siteFile is a file a site serves for machines (robots.txt,
// sitemap.xml), fetched over HTTP, not a page to open.
var siteFile = regexp.MustCompile(`(?i)/(?:robots\.txt|sitemap[\w-]*\.xml|security\.txt)$`)

// namedFile is a path that ends in a file's name: an extension or a
// dot file.
var namedFile = regexp.MustCompile(`(?:^|/)[\w.-]*\.[A-Za-z0-9]{1,6}$`)

// movedFiles says whether the last words lexed are a verb of files: the
// files a pattern matches are then the step's ("move test-results/*.xml
// into it").
func movedFiles(out []token) bool {
	for i := len(out) - 1; i >= 0 && i >= len(out)-3; i-- {
		if out[i].kind == word && fileVerbs[out[i].text] {
			return true
		}
	}
	return false
}

var fileVerbs = wordSet(`move mv copy cp delete remove rm zip archive chmod chown read cat list ls`)

// closingMarks are brackets or quotes closed, then a clause's or a
// sentence's mark.
var closingMarks = regexp.MustCompile(`^[)\]}"'’”]+[,.;:!?]+$`)

var numberWords = map[string]int{"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9, "ten": 10, "twenty": 20, "hundred": 100}

// lex reads text into tokens.
func lex(text string) []token {
	var out []token
	for i := 0; i < len(text); {
		r, n := utf8.DecodeRuneInString(text[i:])
		switch {
		case r == '\n' && len(out) > 0 && out[len(out)-1].kind != punct && listItem.MatchString(text[i+n:]):
			out = append(out, token{kind: punct, text: ";"}) // a line of a list is a step of its own
			i += n
		case r == '\n' && strings.HasPrefix(text[i+n:], "#!"):
			// "... with the snippet below:\n#!/bin/sh\ncurl ...": a script's
			// text to write, not steps
			out = append(out, token{kind: punct, text: "."}, token{kind: quoted, text: text[i+n:], raw: "```"})
			i = len(text)
		case unicode.IsSpace(r):
			i += n
		case (r == '{' || r == '[') && (i == 0 || unicode.IsSpace(lastRune(text[:i]))) && jsonEnd(text, i) > 0:
			end := jsonEnd(text, i)
			out = append(out, token{kind: quoted, text: text[i:end], raw: "{"})
			i = end
		case strings.ContainsRune("SIUDACTBW", r) && (i == 0 || !isWordRune(lastRune(text[:i]))) && sqlStart.MatchString(text[i:]):
			end := sqlEnd(text, i)
			out = append(out, token{kind: statement, text: strings.TrimSpace(text[i:end])})
			i = end
		case strings.HasPrefix(text[i:], "(open)"), strings.HasPrefix(text[i:], "open)"):
			out = append(out, token{kind: word, text: "is", stem: "is"}, token{kind: word, text: "open", stem: search.Stem("open")}) // "on /account (open)": the page is open
			i += strings.Index(text[i:], ")") + 1
		case r == '(':
			i += n // "(localhost:3000)", "(#search-suggest)": the value inside
		case isQuote(r) && (i == 0 || !isWordRune(lastRune(text[:i]))):
			if end := closingQuote(text, i+n, r); end > 0 {
				if in := text[i+n : end]; r == '`' && selectorLike.MatchString(in) {
					out = append(out, token{kind: selector, text: in}) // `.basket-line`
				} else {
					out = append(out, token{kind: quoted, text: in, raw: string(r)})
				}
				_, m := utf8.DecodeRuneInString(text[end:])
				i = end + m
				continue
			}
			i += n
		default:
			end := i
			for end < len(text) {
				r, m := utf8.DecodeRuneInString(text[end:])
				if unicode.IsSpace(r) {
					break
				}
				end += m
			}
			switch chunk := text[i:end]; {
			case listMark.MatchString(chunk):
				out = append(out, token{kind: punct, text: ";"}) // "1)", "2.": an item of a list, a step of its own
			case chunk == "/" && len(out) > 0 && (out[len(out)-1].stem == "<email>" || out[len(out)-1].kind == word) && passwordNext(text[end:]):
				out = append(out, token{kind: word, text: "<creds>", stem: "<creds>"}) // qa.admin / Adm1n!qa: a login
			case hyphenName.MatchString(chunk) && containerNext.MatchString(text[end:]):
				// "in the qa-pg container": a container's name, whole
				out = append(out, token{kind: word, text: strings.ToLower(chunk), raw: chunk, stem: strings.ToLower(chunk)})
			case comparison.MatchString(chunk) && (len(chunk) > 2 || numberNext(text[end:])):
				// "> 0", ">=3", "< 95%": a bound in words, as "over 0"
				m := comparison.FindStringSubmatch(chunk)
				for _, w := range strings.Fields(comparisonWords[m[1]]) {
					out = append(out, token{kind: word, text: w, stem: search.Stem(w)})
				}
				out = lexChunk(out, m[2])
			case numberRange.MatchString(chunk):
				// 0..50000: a range, as "between 0 and 50000"
				m := numberRange.FindStringSubmatch(chunk)
				out = append(out, token{kind: word, text: "between", stem: search.Stem("between")})
				out = lexChunk(out, m[1])
				out = append(out, token{kind: word, text: "and", stem: "and"})
				out = lexChunk(out, m[2])
			default:
				out = lexChunk(out, chunk)
			}
			i = end
		}
	}
	return againVerbs(pathsNotRepos(out))
}

// comparison is a bound written as a sign: "> 0", ">=3", "<95%"; and
// comparisonWords say it in words, as a request in words would.
var (
	comparison      = regexp.MustCompile(`^(>=|<=|=>|=<|≥|≤|>|<)([0-9][0-9.,]*[a-zA-Z%]*)?$`)
	comparisonWords = map[string]string{">": "over", "<": "under", ">=": "at least", "=>": "at least", "≥": "at least", "<=": "at most", "=<": "at most", "≤": "at most"}
)

// decimalNumber is a number with a decimal point.
var decimalNumber = regexp.MustCompile(`^[0-9]+\.[0-9]+$`)

// numberRange is a range written 0..50000.
var numberRange = regexp.MustCompile(`^([0-9][0-9,]*(?:\.[0-9]+)?)\.\.([0-9][0-9,]*(?:\.[0-9]+)?)[,.;]?$`)

// containerNext says that the word "container" comes next.
var containerNext = regexp.MustCompile(`^\s+containers?\b`)

// numberNext says whether a number comes next in text, after spaces.
func numberNext(text string) bool {
	text = strings.TrimLeft(text, " \t")
	return text != "" && text[0] >= '0' && text[0] <= '9'
}

// jsonEnd is the end of the JSON object or array that starts at i, or 0
// when there is none: brackets balanced outside strings, holding a colon
// or a comma (not a {{placeholder}} nor a [link]).
func jsonEnd(text string, i int) int {
	depth, inString, data := 0, false, false
	for j := i; j < len(text); j++ {
		c := text[j]
		switch {
		case inString:
			if c == '\\' {
				j++
			} else if c == '"' {
				inString = false
			}
		case c == '"':
			inString = true
		case c == '{' || c == '[':
			depth++
		case c == '}' || c == ']':
			depth--
			if depth == 0 {
				if !data || strings.HasPrefix(text[i:], "{{") {
					return 0
				}
				return j + 1
			}
		case c == ':' || c == ',':
			data = true
		}
	}
	return 0
}

// sqlStart begins an SQL statement: its verb in capitals, then more.
var sqlStart = regexp.MustCompile(`^(?:SELECT|INSERT\s+INTO|UPDATE\s+\w+\s+SET|DELETE\s+FROM|ALTER\s+TABLE|CREATE\s+(?:TABLE|INDEX|UNIQUE)|DROP\s+(?:TABLE|INDEX)|TRUNCATE|BEGIN;|WITH\s+\w+\s+AS)\b`)

// sqlNext begins a further statement after a semicolon.
var sqlNext = regexp.MustCompile(`^\s*(?:SELECT|INSERT|UPDATE|DELETE|ALTER|CREATE|DROP|TRUNCATE|COMMIT|ROLLBACK|END)\b`)

// sqlEnd is where the SQL that starts at i ends: at a semicolon no
// statement follows, at a sentence's end, at "then" or at a dash, outside
// quotes; statements joined by semicolons are one.
func sqlEnd(text string, i int) int {
	var quote byte
	for j := i; j < len(text); j++ {
		c := text[j]
		switch {
		case quote != 0:
			if c == quote {
				quote = 0
			}
		case c == '\'' || c == '"':
			quote = c
		case c == ';':
			if !sqlNext.MatchString(text[j+1:]) {
				return j + 1
			}
		case (c == '.' || c == '?' || c == '!') && (j+1 == len(text) || text[j+1] == ' ' || text[j+1] == '\n'):
			return j
		case c == ' ' && (strings.HasPrefix(text[j:], " — ") || proseAfter(text[j+1:])):
			return j
		case c == ',' && strings.HasPrefix(text[j:], ", then"):
			return j
		}
	}
	return len(text)
}

// proseAfter says whether the words at the start of rest are the
// request's again, not the SQL's: SQL written with its keywords in
// capitals goes on in prose with a small word ("... WHERE id = 1 on my
// local postgres", "... from reports.db into out.json").
func proseAfter(rest string) bool {
	w, _, _ := strings.Cut(rest, " ")
	return proseWords[w]
}

var proseWords = wordSet(`on in from into against for with and then to using via inside at should must expect`)

// againVerbs reads "re" before a verb, as in "re-run" or "re trigger the
// workflow", as that verb done again: one word where one is known
// (rerun, retry), else the verb.
func againVerbs(tokens []token) []token {
	out := tokens[:0]
	for i, t := range tokens {
		if t.kind == word && t.text == "re" && i+1 < len(tokens) && tokens[i+1].kind == word && againVerbSet[tokens[i+1].text] {
			if next := &tokens[i+1]; againWords[next.text] {
				next.text = "re" + next.text
				next.stem = search.Stem(next.text)
			}
			continue
		}
		out = append(out, t)
	}
	return out
}

var (
	againVerbSet = wordSet(`run trigger try open submit queue deploy start send test check build seed sync index import register install connect create`)
	againWords   = wordSet(`run try open submit queue`) // rerun, retry, reopen, resubmit, requeue
)

// pathsNotRepos reads owner/name as a folder path (fixtures/uploads,
// logs/tmp) when it starts with a folder projects have, or when nothing
// in the request speaks of GitHub; and as a user and password after "as"
// or "with" (as admin/admin).
func pathsNotRepos(tokens []token) []token {
	github := false
	for _, t := range tokens {
		github = github || t.kind == word && (githubCues[t.text] || versionTag.MatchString(t.text) || strings.HasPrefix(t.text, "ghp_")) || t.kind == link && strings.Contains(t.text, "github.com")
	}
	out := tokens[:0:0]
	for i, t := range tokens {
		if t.kind != repoRef {
			out = append(out, t)
			continue
		}
		first, second, _ := strings.Cut(t.text, "/")
		switch {
		case i > 0 && credentialsBefore[tokens[i-1].text] || first == second:
			t.kind = quoted // as admin/admin: a user and a password
		case i+1 < len(tokens) && imageNouns[tokens[i+1].text]:
			// the tinysteps/e2e-runner image: newClause marks it an image
		case !github && search.SlashedList(t.text):
			out = appendWord(appendWord(out, first), second) // lat/lng, pass/fail: two words, not a path
			continue
		case !github || projectDirs[strings.ToLower(first)]:
			t.kind = file
		}
		out = append(out, t)
	}
	return out
}

var (
	closeStem, connectionStem = search.Stem("close"), search.Stem("connection")
	credentialsBefore         = wordSet(`as with using credentials creds password user`)
	githubCues                = wordSet(`github gh repo repos repository repositories pr prs pull issue issues bug branch branches workflow workflows ci actions merge fork commit commits
		tag tags protected main master develop labelled labeled label labels runs`)
	// versionTag is the first word of a version tag such as v1.4.0.
	versionTag  = regexp.MustCompile(`^v\d+$`)
	projectDirs = wordSet(`fixtures logs log tests test spec specs src data config configs docs reports report tmp temp build dist out output scripts samples sample
		artifacts e2e public assets static lib app apps schemas schema queries sql migrations templates screenshots uploads results coverage
		backups backup snapshots cmd internal pkg packages services web api seeds mocks golden testdata node_modules`)
)

// lexChunk reads one run of text without spaces: a URL, a path or a file
// name whole (without the punctuation that ends a sentence), else words.
func lexChunk(out []token, chunk string) []token {
	body := strings.TrimRight(chunk, ",.;:!?)")
	tail := chunk[len(body):]
	lower := strings.ToLower(body)
	switch {
	case plainWords(body):
		// Most chunks are words: none of the values below can be one.
		return lexWords(out, chunk)
	case decimalNumber.MatchString(body):
		// 1.85, 29.99: one number, not two
		n, _ := strconv.Atoi(body[:strings.IndexByte(body, '.')])
		out = append(out, token{kind: number, text: body, stem: body, num: n})
	case (body == "—" || body == "–" || body == "-") && len(out) > 0 && out[len(out)-1].kind != punct:
		// "reload - does it jump to /payment?": a dash before a yes/no
		// question about what the step did is a comma (lexWords decides)
		out = append(out, token{kind: punct, text: "–"})
	case body == "->" || body == "→" || body == "=>":
		// "/p/tv -> 'Reserve'", "Marketing → Vouchers → New": where to go next on a page
		out = append(out, token{kind: punct, text: "->"})
	case emailAddr.MatchString(body):
		// qa.lead@voltbay.test: a user's address, not the words "qa",
		// "lead" and "test"
		out = append(out, token{kind: word, text: strings.ToLower(body), raw: body, stem: "<email>"})
	case len(body) >= 10 && body[4] == '-' && isoDate.MatchString(body):
		// 2025-03-14T09:58:30Z: a date or a time, one value
		out = append(out, token{kind: word, text: strings.ToLower(body), raw: body, stem: "<date>"})
	case lower == "robots.txt" || lower == "sitemap.xml" || lower == "security.txt":
		// "diff robots.txt between staging and production": the site's
		// file, fetched, not one on disk
		out = append(out, token{kind: urlPath, text: "/" + lower})
	case keyAssign.MatchString(body):
		// feature:newCheckout=on: a key and the value it is set to
		key, val, _ := strings.Cut(body, "=")
		out = appendWord(lexChunk(out, key), "to")
		return lexChunk(out, val+tail)
	case envAssign.MatchString(body):
		// DB_URL=postgres://..., POSTGRES_PASSWORD=test: a setting's
		// value, not a database to use
		out = append(out, token{kind: word, text: strings.ToLower(body), raw: body, stem: strings.ToLower(body)})
	case issueRef.MatchString(body):
		n, _ := strconv.Atoi(body[1:])
		out = append(out, token{kind: number, text: body[1:], stem: body[1:], num: n, raw: "#"}) // #497: a PR's or an issue's number
	case jsExpr.MatchString(body):
		out = append(out, token{kind: script, text: body})
	case regexLike.MatchString(chunk) && !strings.HasPrefix(lower, "http"):
		out = append(out, token{kind: pattern, text: chunk})
		return out
	case strings.HasPrefix(lower, "http://"), strings.HasPrefix(lower, "https://"), search.DatabaseOf(lower) != "", localHost.MatchString(lower), hostLike.MatchString(lower) && !fileName.MatchString(lower) && !imageRef.MatchString(lower):
		out = append(out, token{kind: link, text: body})
	case hyphenName.MatchString(body) && afterContainerVerb(out):
		out = append(out, token{kind: word, text: lower, raw: body, stem: lower}) // "stop and remove (the) bb-old-pg": a container's name, whole
	case spawnID.MatchString(lower):
		out = append(out, token{kind: word, text: lower, raw: body, stem: lower}) // sp-44: a sub-agent's id, whole
	case body == "+" || body == "&":
		out = appendWord(out, "and") // "logs + inspect it", "the error message + that we stay on /login"
	case lower == "w/":
		out = appendWord(out, "with") // shorthand, not a folder
	case lower == "w/o":
		out = appendWord(out, "without")
	case strings.HasPrefix(body, "**/") || strings.HasPrefix(body, "*/api") || strings.HasPrefix(body, "/api/") && strings.Contains(body, "*"):
		out = append(out, token{kind: urlPath, text: body}) // **/api/v1/listings*: requests by pattern, to intercept
	case strings.Contains(body, "*") && fileName.MatchString(body) && !movedFiles(out):
		return lexWords(out, chunk) // "JUnit files are in ci-history/*.xml": where reports are kept, in words
	case fileName.MatchString(body) && !strings.HasPrefix(body, "/api"), search.DotFile(body):
		out = append(out, token{kind: file, text: body}) // also test-results/*.xml after a verb of files
	case search.SlashedList(body):
		for _, w := range strings.Split(body, "/") {
			out = appendWord(out, w) // p50/p95, 4xx/5xx: a list, not a path
		}
	case imageRef.MatchString(lower), localImage.MatchString(lower):
		out = appendWord(out, body) // acme/api:pr-482, shop-api:qa: an image, marked so
	case repoName.MatchString(body):
		out = append(out, token{kind: repoRef, text: body})
	case fsRoot.MatchString(body):
		out = append(out, token{kind: file, text: body}) // /srv/imports, /tmp/out: the machine's, not a site's
	case len(body) > 1 && body[0] == '/':
		out = append(out, token{kind: urlPath, text: body})
	case relPath.MatchString(body), dirLike.MatchString(body):
		out = append(out, token{kind: file, text: body})
	case selectorLike.MatchString(body):
		out = append(out, token{kind: selector, text: body})
	case instanceName.MatchString(body):
		// parcel-shipment-api-1, web-2: a container's or an instance's
		// name, not its words
		out = append(out, token{kind: word, text: strings.ToLower(body), raw: body, stem: strings.ToLower(body)})
	case keyLike.MatchString(strings.TrimRight(chunk, ",.;!?)")):
		body = strings.TrimRight(chunk, ",.;!?)")
		tail = chunk[len(body):]
		// feature:beta, session: (a key, not a sentence's colon)
		out = appendWord(out, body)
	case closingMarks.MatchString(chunk):
		// "),", "')." after a quote: the mark ends a clause or a sentence.
		for _, r := range strings.TrimLeft(chunk, ")]}\"'’”") {
			out = append(out, token{kind: punct, text: string(r)})
		}
		return out
	case !strings.ContainsFunc(chunk, isWordRune) && len(chunk) > 1:
		// "./...", "--": no words and no sentence end.
		return out
	default:
		return lexWords(out, chunk)
	}
	for _, r := range tail {
		if r != ')' {
			out = append(out, token{kind: punct, text: string(r)})
		}
	}
	return out
}

// lexWords reads a chunk as words, with the marks that end a sentence or
// a clause at its end.
func lexWords(out []token, chunk string) []token {
	start := -1
	flush := func(end int) {
		if start >= 0 {
			out = appendWord(out, chunk[start:end])
			start = -1
		}
	}
	for j, r := range chunk {
		switch {
		case isWordRune(r):
			if start < 0 {
				start = j
			}
		case r == '\'' && start >= 0:
			// user's, don't: the word goes on; the 's is dropped below.
		default:
			flush(j)
			// A mark ends a sentence or a clause only at the end of
			// its chunk (not e.g. in i.e.).
			if strings.ContainsRune(",.;:?!", r) && strings.Trim(chunk[j:], ",.;:?!\"')") == "" {
				out = append(out, token{kind: punct, text: string(r)})
			}
		}
	}
	flush(len(chunk))
	return out
}

// plainWords says whether s holds only letters, digits and apostrophes.
func plainWords(s string) bool {
	for _, r := range s {
		if !isWordRune(r) && r != '\'' || r == '_' {
			return false
		}
	}
	return s != ""
}

// wordToken is the token of a word written in lower case.
func wordToken(w string) token { return token{kind: word, text: w, raw: w, stem: search.Stem(w)} }

func appendWord(out []token, w string) []token {
	if n := len(out); n > 0 && strings.EqualFold(w, "storage") && out[n-1].kind == word && (out[n-1].text == "local" || out[n-1].text == "session") {
		// "local storage", "session storage": the browser's, one word
		// as in the API's name.
		w = out[n-1].text + "storage"
		out = out[:n-1]
		if n := len(out); n >= 2 && out[n-1].text == "and" && (out[n-2].text == "local" || out[n-2].text == "session") {
			out[n-2] = wordToken(out[n-2].text + "storage") // "local and session storage": both
		}
	}
	raw := w
	method := httpMethods[w]
	w = strings.ToLower(w)
	if i := strings.IndexByte(w, '\''); i >= 0 {
		w = w[:i]
	}
	if w == "" {
		return out
	}
	if n, err := strconv.Atoi(w); err == nil {
		return append(out, token{kind: number, text: w, stem: w, num: n})
	}
	if n, ok := numberWords[w]; ok {
		return append(out, token{kind: number, text: w, stem: w, num: n})
	}
	if i := strings.IndexByte(raw, '\''); i >= 0 {
		raw = raw[:i]
	}
	stem := search.Stem(w)
	if nounForms[w] && (w != "listing" || len(out) > 0 && determiners[out[len(out)-1].text]) {
		stem = w // "the listing page", "seller listings": a thing, not the verb list
	}
	return append(out, token{kind: word, text: w, raw: raw, stem: stem, method: method})
}

// nounForms are words whose stem is a verb's they do not mean: a
// marketplace's listings ("listing" only after a determiner).
var nounForms = wordSet(`listing listings`)

// determiners come before a noun.
var determiners = wordSet(`the a an this that each every new my our your his her their its active one`)

var httpMethods = wordSet(`GET POST PUT PATCH DELETE HEAD OPTIONS`)

func isWordRune(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) || r == '_' }

func isQuote(r rune) bool { return strings.ContainsRune("'\"“‘`", r) }

func lastRune(s string) rune {
	r, _ := utf8.DecodeLastRuneInString(s)
	return r
}

// closingQuote finds where the quote opened by open at from ends: the same
// mark (or its closing form) not followed by a letter; -1 if none.
func closingQuote(text string, from int, open rune) int {
	closeWith := map[rune]rune{'“': '”', '‘': '’'}[open]
	if closeWith == 0 {
		closeWith = open
	}
	for j := from; j < len(text); {
		r, n := utf8.DecodeRuneInString(text[j:])
		if r == closeWith {
			next, _ := utf8.DecodeRuneInString(text[j+n:])
			if j+n >= len(text) || !isWordRune(next) {
				return j
			}
		}
		j += n
	}
	return -1
}

// stepStarters begin a new step after "and" or a comma.
var stepStarters = wordSet(`check verify assert ensure confirm make see expect open go navigate visit load click press tap
	type enter fill submit log sign take capture compare run read write save upload choose select pick hover drag scroll
	accept dismiss wait find list show get fetch call post put send seed insert clear flush count generate create delete
	remove start stop build trigger merge review push zip unzip extract back restore watch render record collect measure
	summarize summarise group tell let have add search tear cancel download set store restart reload resize switch close
	connect query update which what why how where did does is are give copy move rename archive chmod chown mkdir
	decode encode parse validate diff approve draw publish import register unregister snapshot kill dissolve spread rank curl
	apply turn grab throw reproduce bring spin kick try replace export deploy dump convert transform dedupe filter sleep
	pause forget put use host pull dig hand tick untick hit fire peek inspect look screenshot print bump change edit modify requeue disconnect leave
	fix cut install enable disable toggle emulate throttle simulate mock stub intercept block replay profile benchmark hash
	calculate compute sort populate truncate migrate rollback revert exec attach tail follow keep repeat schedule queue
	terminate boot execute invoke ping probe wget rm wipe reset purge prune clean tidy discover display grep locate
	lookup lint audit scan crawl gather aggregate combine prioritize triage detect explain describe analyse analyze
	retry rerun reopen assign notify share dispatch spawn delegate ask poll refresh resume reject authenticate
	preload prefill prepopulate upsert bulk-load ls halt double-check go-to`)

// nounVerbs are verbs that are nouns as often ("file", "branch"), which
// begin a step only when what they act on follows ("file an issue", "tag
// it"); objects are what a verb acts on.
var (
	nounVerbs = wordSet(`file post tag branch record trace request report match mark time sign drop patch note label commit
		comment issue test backup snapshot log route`)
	objects = wordSet(`a an the it them its their that this those these all every each my our me us his her`)
)

// objectFollows says whether t is what a verb acts on: an article or a
// pronoun, or a value written out.
func objectFollows(t token) bool {
	return t.kind == word && objects[t.text] || t.kind != word && t.kind != punct && t.kind != number
}

// thenWords end a step on their own.
var thenWords = wordSet(`then afterwards finally next`)

// split cuts tokens into clauses; words are taken from text by token.
func split(tokens []token) []*clause {
	var out []*clause
	var cur []token
	then := false
	// verb is a step's verb alone before "and" ("stop and remove
	// bb-old-pg"): it acts on what the next step names.
	var verb []token
	flush := func() {
		if len(cur) == 0 && verb != nil {
			cur = verb // "stop and." : the verb alone
		} else if verb != nil {
			out = append(out, newClause(append(verb, cur[1:]...)))
		}
		verb = nil
		if len(cur) > 0 {
			c := newClause(cur)
			c.then = then
			out = append(out, c)
			cur = nil
		}
		then = false
	}
	for i := 0; i < len(tokens); i++ {
		t := tokens[i]
		next := func(k int) token {
			if i+k < len(tokens) {
				return tokens[i+k]
			}
			return token{kind: punct}
		}
		switch {
		case t.kind == punct && strings.ContainsAny(t.text, ".;?!"):
			flush()
			continue
		case t.kind == word && thenWords[t.text] && !(i > 0 && tokens[i-1].kind == word && nounBefore[tokens[i-1].text]):
			flush()
			then = true
			continue
		case len(cur) >= 2 && purposeAt(tokens, i):
			// "... so the other tests can reuse it", "because the
			// banner hides it": why, not a step; up to a mark or "then".
			for i+1 < len(tokens) && tokens[i+1].kind != punct && !(tokens[i+1].kind == word && thenWords[tokens[i+1].text]) &&
				!(tokens[i+1].text == "and" && i+2 < len(tokens) && purposeEnds[tokens[i+2].text]) {
				i++
			}
			continue
		case len(cur) >= 2 && notThis(tokens, i):
			// "stop the container but don't remove it", "tick it
			// without toggling it off": what not to do, up to a mark.
			for i+1 < len(tokens) && tokens[i+1].kind != punct {
				i++
			}
			continue
		case t.kind == word && t.text == "after" && next(1).text == "that":
			flush()
			i++
			continue
		case t.kind == punct && t.text == "–":
			if n := next(1).text; n == "does" || n == "did" || n == "do" {
				flush() // "reload - does it jump to /payment?": a check of its own
			}
			continue
		case t.kind == punct || t.kind == word && t.text == "and":
			// ", and check", "and then", ", wait": a new step when a verb
			// comes next.
			k := 1
			for next(k).kind == word && (next(k).text == "and" || next(k).text == "also" || next(k).text == "then") || next(k).kind == punct && next(k).text == "," {
				k++
			}
			if n := next(k); n.kind == word && (stepStarters[n.text] || nounVerbs[n.text] && (objectFollows(next(k+1)) || n.text == "comment" && next(k+1).text == "on") || whenDone(tokens, i+k) || n.text == "if" && i+k > 0 && tokens[i+k-1].text == "and") {
				if t.text == "and" && len(cur) == 1 && cur[0].kind == word && stepStarters[cur[0].text] && stepStarters[n.text] {
					verb, cur = []token{cur[0]}, nil // "stop and remove X": stop X, remove X
					i += k - 1
					continue
				}
				flush()
				then = slices.ContainsFunc(tokens[i+1:i+k], func(t token) bool { return t.kind == word && t.text == "then" }) // ", then requeue it"
				i += k - 1
				continue
			}
			// "click 'Orders', we should be on /account/orders": what
			// should follow is a check of its own.
			if t.text == "," && len(cur) > 0 && (modals[next(1).text] || next(1).kind == word && !stepStarters[next(1).text] && modals[next(2).text] ||
				next(1).text == "the" && next(2).kind == word && modals[next(3).text]) {
				flush()
				continue
			}
			// "click Pay now and the 'card declined' message should
			// show": after an action, what should follow is a check of
			// its own.
			if len(cur) > 0 && next(1).text == "the" && modalSoon(tokens, i+2) && !slices.ContainsFunc(cur, func(t token) bool { return isCheckWord(t) || checkVerbs[t.text] }) {
				flush()
				continue
			}
			// "the title should contain X, the button must be visible":
			// two checks, each its own step.
			if (t.text == "," || t.text == "and") && slices.ContainsFunc(cur, isCheckWord) && slices.ContainsFunc(tokens[i+1:segmentEnd(tokens, i+1)], isCheckWord) {
				flush()
				continue
			}
			if t.kind == punct && t.text != "->" {
				continue
			}
		}
		cur = append(cur, t)
	}
	flush()
	return splitNounLists(out)
}

// listNouns are the things a request asks of one subject in a list
// ("logs and artifacts for task 8812", "repo info + branches for x/y",
// "summary and timing for results.json"): each is a step of its own.
var listNouns = wordSet(`logs log artifacts status summary timing timings info branches failures stats statistics jobs output health metrics workflows runs issues tags`)

// askVerbs ask for things to be shown, which a list of them splits.
var askVerbs = wordSet(`show get give list fetch pull read grab`)

// splitNounLists cuts a clause that asks for two things of one subject
// ("logs and artifacts for task 8812", "show me the jobs and the pool's
// status") into one clause per thing, each with the clause's verb and
// its subject ("for task 8812").
func splitNounLists(clauses []*clause) []*clause {
	var out []*clause
	for _, c := range clauses {
		toks := c.tokens
		k := slices.IndexFunc(toks, func(t token) bool { return t.kind == word && t.text == "and" })
		if its := itsThing(toks, k); its != nil {
			// "repo info for acme/web and its workflows": the second
			// thing is of the same subject.
			a, z := newClause(toks[:k]), newClause(its)
			a.then = c.then
			out = append(out, a, z)
			continue
		}
		if k < 1 || toks[k-1].kind != word || !listNouns[toks[k-1].text] {
			out = append(out, c)
			continue
		}
		// The second thing is the next word, or the one after it ("pool
		// status"); the subject begins at the first "for" after it.
		b := -1
		for j := k + 1; j < min(k+3, len(toks)); j++ {
			if toks[j].kind == word && listNouns[toks[j].text] {
				b = j
				break
			}
		}
		if b < 0 {
			out = append(out, c)
			continue
		}
		tail := b + 1
		for tail < len(toks) && !(toks[tail].kind == word && toks[tail].text == "for") {
			tail++
		}
		var verb []token
		if toks[0].kind == word && stepStarters[toks[0].text] {
			if !askVerbs[toks[0].text] {
				out = append(out, c) // "analyse the failures and the timings": one piece of work
				continue
			}
			verb = toks[:1]
		}
		first := append(slices.Clone(toks[:k]), toks[tail:]...)
		second := append(slices.Clone(verb), toks[k+1:]...)
		a, z := newClause(first), newClause(second)
		a.then = c.then
		out = append(out, a, z)
	}
	return out
}

// itsThing is the clause of "and its workflows" after a thing asked of
// a subject ("repo info for acme/web and its workflows"): the verb, the
// second thing and the subject ("workflows for acme/web"); nil when the
// clause at the "and" at k is not so.
func itsThing(toks []token, k int) []token {
	if k < 2 || k+2 >= len(toks) || toks[k+1].text != "its" || toks[k+2].kind != word || !listNouns[toks[k+2].text] {
		return nil
	}
	f := slices.IndexFunc(toks[:k], func(t token) bool { return t.kind == word && t.text == "for" })
	if f < 1 || !listNouns[toks[f-1].text] {
		return nil
	}
	var out []token
	if toks[0].kind == word && askVerbs[toks[0].text] {
		out = append(out, toks[0])
	}
	out = append(out, toks[k+2:]...)
	return append(out, toks[f:k]...)
}

// base64Like says whether a word is base64's text: twelve or more of its
// letters, in both cases and with a digit (or ending in =), no word.
func base64Like(w string) bool {
	if len(w) < 12 || strings.Trim(w, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/=") != "" {
		return false
	}
	return strings.ContainsAny(w, "ABCDEFGHIJKLMNOPQRSTUVWXYZ") && strings.ContainsAny(w, "abcdefghijklmnopqrstuvwxyz") &&
		(strings.ContainsAny(w, "0123456789") || strings.HasSuffix(w, "="))
}

// oneThing after 1 (or 0) are a count of things on a page: "the tray
// has 1 item".
var oneThing = wordSet(`item product result entry line card row suggestion option`)

// refNouns before a number make it a pull request's or an issue's.
var refNouns = wordSet(`pr issue`)

// searchNouns after "search" make it a noun: "search box", "search results".
var searchNouns = wordSet(`box bar field form input autocomplete results result page wizard flow suggestions`)

// imageNouns after owner/name make it an image's name.
var imageNouns = wordSet(`image images container containers`)

// maxPhrase is the most words a trigger phrase ("a+b+c") may have.
const maxPhrase = 5

func newClause(tokens []token) *clause {
	c := &clause{tokens: tokens, set: map[string]bool{}}
	var words []string
	// run holds the stems of the words just before, for phrases of up to
	// maxPhrase words ("make sure", "side by side", "in the last few").
	var run []string
	for i, t := range tokens {
		switch t.kind {
		case word, number:
			c.set[t.stem] = true
			c.set["="+t.text] = true
			if len(run) == maxPhrase {
				run = run[1:]
			}
			run = append(run, t.stem)
			for j := len(run) - 2; j >= 0; j-- {
				c.set[strings.Join(run[j:], " ")] = true
			}
		default:
			run = run[:0]
			switch {
			case t.kind == repoRef && i+1 < len(tokens) && imageNouns[tokens[i+1].text]:
				c.set["<image>"] = true // the tinysteps/e2e-runner image: Docker's, not a repository
			case t.kind != file || !dbFile.MatchString(t.text):
				c.set["<"+kindName[t.kind]+">"] = true
			}
		}
		for _, m := range markers(tokens, i) {
			c.set[m] = true
		}
		if t.kind == quoted {
			words = append(words, "'"+t.text+"'")
		} else {
			words = append(words, t.written())
		}
	}
	c.words = strings.Join(words, " ")
	for i, t := range tokens {
		if t.kind == number && i > 0 && tokens[i-1].kind == word {
			c.set[tokens[i-1].stem+" <number>"] = true // "job 5533", "PR 12": a thing by its number
		}
	}
	for i, t := range tokens {
		if t.kind == word && t.text == "seed" && i+1 < len(tokens) && tokens[i+1].kind == number && !seedsRows(tokens[i+2:]) {
			delete(c.set, t.stem) // "seed 42": a random seed, not seeding a table ("seed 100 fake customers")
			c.set["<randomseed>"] = true
		}
	}
	if cardNumber(tokens) {
		c.set["<cardnum>"] = true // 4242 4242 4242 4242: a payment card's details, typed into the form
	}
	for i, t := range tokens {
		if t.kind == word && t.text == "without" && i+1 < len(tokens) && tokens[i+1].kind == word && systemWords[tokens[i+1].text] {
			delete(c.set, tokens[i+1].stem) // "without Compose", "without docker": not that system
		}
	}
	if (c.set["=server"] || c.set["=servers"] || c.set["=mcp"] || c.set["=mcps"]) && c.set["<ident>"] && slices.ContainsFunc(tokens, func(t token) bool { return t.kind == word && strings.Contains(t.text, "_") }) {
		c.set["<toolserver>"] = true // "call ocr_invoice on whichever pdf server is up": a hosted server's tool
	}
	if c.set["<key>"] && c.set[search.Stem("hash")] {
		c.set["redis"] = true // "the reminder:config:44 hash": a Redis hash
	}
	if c.set["<sqlfile>"] && c.hasAny(runSQL) {
		c.set["<runsql>"] = true // apply migrations/005.sql: a database's work, not a file's
	}
	if len(tokens) > 2 && tokens[0].kind == word && yesNo[tokens[0].text] && tokens[1].text != "there" {
		c.set["<yesno>"] = true // "is GET /api/products sending Cache-Control?": a check
	}
	for i, t := range tokens {
		if t.kind == word && (t.text == "agent" || t.text == "agents") && roleLabel(tokens, i) {
			delete(c.set, t.stem) // "as the agent", "(agent planning)", "Agent: ...": who speaks, not a sub-agent
		}
	}
	if len(tokens) > 1 && tokens[0].text == "search" && tokens[1].kind != punct && !searchNouns[tokens[1].text] {
		c.set["<searchverb>"] = true // "search Paris": a step that searches, not the search form
	}
	if nounAdd(tokens) {
		delete(c.set, search.Stem("add")) // "check the Add to cart button is visible": a button's name, not a step
		delete(c.set, "=add")
	}
	if nounCheck(tokens) {
		delete(c.set, checkStem) // "the cart persistence check", "a keyboard-only check on /signup": a name, not a check to make
	}
	for i, t := range tokens {
		if t.kind == word && (t.text == "queue" || t.text == "queues") && i > 0 && pageQueues[tokens[i-1].text] {
			delete(c.set, t.stem) // "the back office queue", "the moderation queue": a page's list, not the job queue
			delete(c.set, "="+t.text)
			c.set[search.Stem("page")] = true
		}
	}
	if n := len(tokens); n > 1 && tokens[n-1].kind == word && showEnds[tokens[n-1].text] && strings.HasSuffix(strings.ToLower(c.words), tokens[n-1].text) {
		c.set["<showsend>"] = true // ".empty-state must show", "button.nav-toggle visible?": that it is there, no text
	}
	if nounConfirm(tokens) {
		delete(c.set, "=confirm") // "OK the are-you-sure confirm": the browser's dialog, not a check
		delete(c.set, search.Stem("confirm"))
	}
	jsons := 0
	for _, t := range tokens {
		if t.raw == "{" {
			jsons++
		}
	}
	if jsons >= 2 {
		c.set["<twojson>"] = true // expected and actual, pasted: values to compare, not a call to make
	}
	if countKind(tokens, number) >= 4 && countKind(tokens, link)+countKind(tokens, urlPath) == 0 && !c.set["<method>"] && !c.set["=px"] && !c.set["=wide"] {
		c.set["<numbers>"] = true // "212, 340, 198, 1204 ...": values given to work on
	}
	if files := countKind(tokens, file); files >= 2 {
		c.set["<twofiles>"] = true
	}
	for i, t := range tokens {
		if t.kind == file && !dbFile.MatchString(t.text) && !outputFile(tokens, i, c) {
			c.set["<infile>"] = true // a file the step reads
		}
		if t.kind == file && namedFile.MatchString(t.text) {
			c.set["<namedfile>"] = true // ./config/staging.env, README.md: a file, not a folder
		}
	}
	if (c.set[closeStem] || c.set["=drop"] || c.set["done with"] || c.set["finish with"]) && (c.set[connectionStem] || c.set["=conn"] || c.set["=pool"] || c.set["=client"]) {
		c.set["<disconnect>"] = true // close the connection
	}
	c.about = aboutOf(c)
	return c
}

// nounAdd says whether every "add" in tokens names a thing ("the Add to
// cart button", "an add-to-basket"), not a step.
func nounAdd(tokens []token) bool {
	n := 0
	for i, t := range tokens {
		if t.kind == word && t.text == "add" {
			if i == 0 || !determiners[tokens[i-1].text] {
				return false
			}
			n++
		}
	}
	return n > 0
}

// nounBefore before "next" make it a noun's ("try the next one"), not a
// step's lead.
var nounBefore = wordSet(`the a to this that`)

// systemWords name a system a request may say it works without.
var systemWords = wordSet(`compose docker browser postgres redis sqlite github ci mocks mock agent agents`)

// seedsRows says whether the words after "seed N" are rows to seed
// ("seed 100 fake customers", "seed 3 discount codes into
// discount_codes"), not the rest of a sentence given a random seed.
func seedsRows(after []token) bool {
	if len(after) > 0 && after[0].kind == word && (after[0].text != after[0].stem || madeUp[after[0].text]) {
		return true
	}
	for _, t := range after[:min(4, len(after))] {
		if t.kind == word && t.text == "into" {
			return true
		}
	}
	return len(after) > 1 && after[0].kind == word && after[1].kind == word && after[1].text != after[1].stem
}

// madeUp say rows are made up: "seed 100 fake customers".
var madeUp = wordSet(`fake test dummy random sample new generated realistic`)

// purposeAt says whether the words at i begin what a step is for: "so
// the other tests can reuse it", "so that", "because", "in order to".
func purposeAt(tokens []token, i int) bool {
	t := tokens[i]
	if t.kind != word {
		return false
	}
	next := func(k int) string {
		if i+k < len(tokens) && tokens[i+k].kind == word {
			return tokens[i+k].text
		}
		return ""
	}
	switch t.text {
	case "so":
		return purposeSubjects[next(1)] || !stepStarters[next(1)] && purposeModals[next(2)] // "so compose can recreate it"
	case "because":
		return true
	case "i", "we":
		return (next(1) == "want" || next(1) == "need") && next(2) == "to" && next(3) == "compare" // "..., I want to compare it with what ops deployed"
	case "want", "need":
		return next(1) == "to" && next(2) == "compare"
	case "in":
		return next(1) == "order" && next(2) == "to"
	}
	return false
}

// notThis says whether the words at i say what a step is not to do:
// "but don't remove it", "but not the cookies", "without toggling it".
func notThis(tokens []token, i int) bool {
	if tokens[i].kind != word || i+1 >= len(tokens) || tokens[i+1].kind != word {
		return false
	}
	next := tokens[i+1].text
	switch tokens[i].text {
	case "but":
		return next == "don" || next == "dont" || next == "never" || next == "do" && i+2 < len(tokens) && tokens[i+2].text == "not"
	case "without":
		return strings.HasSuffix(next, "ing")
	}
	return false
}

// purposeEnds after "and" end a purpose and begin the next step: "pull
// it so we can test the rollback and show me the images".
var purposeEnds = wordSet(`show give list tell send open run check`)

// purposeSubjects after "so" begin a purpose ("so the tests can reuse
// it"), not a step ("so check it").
var purposeSubjects = wordSet(`that i we you they the it its our no nobody other others everyone`)

// purposeModals after "so" and a name begin a purpose too.
var purposeModals = wordSet(`can could will would won doesn don isn gets`)

// cardNumber says whether tokens hold a payment card's number: sixteen
// digits, whole or in four groups of four.
func cardNumber(tokens []token) bool {
	run := 0
	for _, t := range tokens {
		switch {
		case t.kind == number && len(t.text) == 16:
			return true
		case t.kind == number && len(t.text) == 4:
			if run++; run == 4 {
				return true
			}
		default:
			run = 0
		}
	}
	return false
}

// runSQL run a file of SQL.
var runSQL = triggers(`apply run load execute migrate import play`)

// nounCheck says whether the clause's only "check" names a check ("perf
// check for /book", "cart persistence check") rather than asks for one:
// a word other than a verb's lead comes before it, and no object after.
func nounCheck(tokens []token) bool {
	noun := false
	for i, t := range tokens {
		if t.kind != word || t.stem != checkStem {
			continue
		}
		if i == 0 || tokens[i-1].kind != word || checkLeads[tokens[i-1].text] || i+1 < len(tokens) && checkObjects[tokens[i+1].text] {
			return false
		}
		noun = true
	}
	return noun
}

// inThe says whether tokens at j are "the" after "in" or "inside".
func inThe(tokens []token, j int) bool {
	return j >= 1 && tokens[j].text == "the" && (tokens[j-1].text == "in" || tokens[j-1].text == "inside")
}

// nounConfirm says whether "confirm" is the browser's dialog ("accept
// the confirm", "the are-you-sure confirm"): after an article or "sure",
// with no object of its own.
func nounConfirm(tokens []token) bool {
	for i, t := range tokens {
		if t.kind == word && t.text == "confirm" && i > 0 && confirmLeads[tokens[i-1].text] && (i+1 == len(tokens) || tokens[i+1].kind != word || tokens[i+1].text == "and") {
			return true
		}
	}
	return false
}

var confirmLeads = wordSet(`the a sure js browser`)

// Words that tell what a clause's words are (newClause, markers).
var (
	// showEnds end a check that a thing is there.
	showEnds = wordSet(`show shows visible appear appears displayed shown`)
	// peopleAgents say an agent is a person at work: "front desk
	// agents", "a support agent".
	peopleAgents = wordSet(`desk support sales service travel call booking insurance estate`)
	// pageQueues name a queue that is a page of an application, people's
	// work to do, not the job queue.
	pageQueues = wordSet(`office moderation review claims claim support approval approvals triage returns refunds tickets orders`)
	// pickVerbs pick a value of a field.
	pickVerbs = wordSet(`pick choose select set`)
)

var (
	checkStem    = search.Stem("check")
	checkLeads   = wordSet(`and to please pls plz then also just now you i we must should will can could lets let quickly double first finally but or so and+then`)
	checkObjects = wordSet(`that if whether the a an it its their them all every each what which how this these those my our out`)
)

// outputFile says whether the file at i is one the step writes: after
// "to", "into" or "as", or after "in" in a step that writes ("put them in
// fixtures/emails.json").
func outputFile(tokens []token, i int, c *clause) bool {
	if i == 0 {
		return false
	}
	switch tokens[i-1].text {
	case "to", "into", "as", "->":
		return true
	case "in", "under":
		return c.hasAny(writeWords)
	}
	return false
}

var writeWords = triggers(`write save put store export dump render`)

// markers are what a token is beside its words: <count> a number of
// things (3 widgets), <measure> a number or an amount (500ms), <bound>
// a bound on one (under 500 ms), <point> x,y on a page, <size> a window size (1280x800), <method> an HTTP
// method, <api> a URL or path of an API, <repo> a GitHub repository's,
// <page> another URL, <dbfile> a database file, <pdf> a PDF.
func markers(tokens []token, i int) []string {
	t := tokens[i]
	var out []string
	switch t.kind {
	case number:
		counted := func(t token) bool { return t.kind == word && t.text != t.stem && !notCounted[t.stem] }
		if !strings.Contains(t.text, ".") && i+1 < len(tokens) && (counted(tokens[i+1]) || tokens[i+1].kind == selector || t.num <= 1 && oneThing[tokens[i+1].text] ||
			tokens[i+1].kind == word && !determiners[tokens[i+1].text] && !prepositions[tokens[i+1].text] && i+2 < len(tokens) && counted(tokens[i+2]) && strings.HasSuffix(tokens[i+2].text, "s")) { // 3 widgets, 24 product cards
			out = append(out, "<count>")
		}
		if t.num >= 100 && t.num <= 599 && i > 0 && statusBefore[tokens[i-1].text] && !(i+1 < len(tokens) && search.AmountUnit(tokens[i+1].text)) {
			out = append(out, "<status>") // "should 301", "returns 200": an HTTP status
		}
		ref := t.raw == "#" || i > 0 && refNouns[tokens[i-1].text] // #497, PR 420
		if ref {
			out = append(out, "<ref>")
		}
		if t.num >= 100 && t.num <= 599 && t.text == strconv.Itoa(t.num) && !ref {
			out = append(out, "<code>") // maybe an HTTP status: "what does a 422 mean"
		}
		out = append(out, "<measure>")
		if i+1 < len(tokens) && tokens[i+1].kind == number {
			out = append(out, "<point>") // 400,300 or (100, 100): a point on the page
		}
	case word:
		if search.WindowSize.MatchString(t.text) || t.text == "x" && i > 0 && i+1 < len(tokens) && tokens[i-1].kind == number && tokens[i+1].kind == number && tokens[i-1].num >= 100 {
			out = append(out, "<size>") // 1280x800, 390 x 844
		}
		if strings.Contains(t.text, "_") && identName.MatchString(t.text) || camelCase.MatchString(t.raw) && !camelWords[t.text] {
			out = append(out, "<ident>") // order_total_check, cartDraft: a name in code
		}
		if (t.text == "build" || t.text == "rebuild") && slices.ContainsFunc(tokens[i+1:min(i+8, len(tokens))], func(n token) bool { return n.kind == file && !namedFile.MatchString(n.text) }) {
			out = append(out, "<buildfrom>") // "build ./services/search", "build the mock from ./mocks/x": an image from a folder
		}
		if t.text == "service" && i >= 2 && tokens[i-2].text == "the" && (i >= 3 && (tokens[i-3].text == "in" || tokens[i-3].text == "inside") || i+1 < len(tokens) && tokens[i+1].text == "of") {
			out = append(out, "<service>") // "in the api service", "the api service of qa-env": a Compose stack's
		}
		if len(t.text) > 2 && t.text[1] == '=' && pointAxis.MatchString(t.text) {
			out = append(out, "<point>") // x=320, y=210: a point on the page
		}
		if instanceName.MatchString(t.text) || i > 0 && containerVerbs[tokens[i-1].text] && hyphenName.MatchString(t.text) {
			out = append(out, "<instance>") // parcel-shipment-api-1: a container
		}
		if (t.text == "logged" || t.text == "signed") && i+1 < len(tokens) && (tokens[i+1].text == "in" || tokens[i+1].text == "into") && (i == 0 || !loginVerbs[tokens[i-1].text]) {
			out = append(out, "<loggedin>") // logged in as the QA lead: a state
		}
		if statusClass.MatchString(t.text) {
			out = append(out, "<statusclass>") // a 4xx: a range of statuses
		}
		if snapshotID.MatchString(t.text) {
			out = append(out, "<snapshotid>") // pricing_1717000000000: a snapshot's id
		}
		if columnRef.MatchString(t.text) {
			out = append(out, "<column>") // orders.status='paid': a table's column
		}
		if promoCode.MatchString(t.raw) {
			out = append(out, "<promo>") // SPRING10: a code typed at the cart
		}
		if t.text == "cli" {
			out = append(out, "<command>") // redis-cli PING
		}
		if attrAssign.MatchString(t.text) {
			out = append(out, "<attrvalue>") // data-variant="v2", autocomplete=off: an element's attribute
		}
		if t.text == "container" && inThe(tokens, i-2) || t.text == "container" && inThe(tokens, i-3) && tokens[i-2].kind == word && tokens[i-1].kind == word {
			out = append(out, "<incontainer>") // "run it in the toolbox container": in one running
		}
		if showWords[t.text] && i+1 < len(tokens) && tokens[i+1].kind == word && len(tokens[i+1].raw) > 1 && unicode.IsUpper(rune(tokens[i+1].raw[0])) {
			out = append(out, "<showsname>") // "the autocomplete shows Shimano": a text shown
		}
		if measureLike.MatchString(t.text) {
			out = append(out, "<measure>") // 500ms, 2s, 10%
		}
		if boundWords[t.text] && boundedBy(tokens[i+1:]) {
			out = append(out, "<bound>") // under 500 ms, at most 3
		}
		if t.method {
			out = append(out, "<method>")
		}
		if strings.HasPrefix(t.text, "ghp_") || strings.HasPrefix(t.text, "github_pat_") {
			out = append(out, "<ghtoken>") // a GitHub token
		}
		if spawnID.MatchString(t.text) {
			out = append(out, "<spawn>") // sp_71: a sub-agent's id
		}
		if envAssign.MatchString(t.raw) {
			out = append(out, "<setting>") // POSTGRES_PASSWORD=qa: a setting of a process to start
		}
		if base64Like(t.raw) {
			out = append(out, "<b64>") // dHJhaWxwb3N0OnN0YWdpbmc=: base64's text
		}
		if name, tag, ok := strings.Cut(t.text, ":"); ok && (imageNames[name] && imageTag.MatchString(tag) || imageRef.MatchString(t.text) ||
			localImage.MatchString(t.text) && slices.ContainsFunc(tokens, func(t token) bool { return t.kind == word && imageContext[t.stem] })) {
			out = append(out, "<image>") // postgres:16, redis:7-alpine: an image, not a key
		} else if strings.Contains(t.text, ":") && keyLike.MatchString(t.text) {
			if strings.ContainsAny(t.text, "*?") {
				out = append(out, "<keyglob>") // session:*: keys by pattern
			} else {
				out = append(out, "<key>") // cart:1042, feature:beta
			}
		}
	case link, urlPath:
		if strings.Contains(t.text, "*") {
			out = append(out, "<urlglob>") // **/api/listings*: the requests a route intercepts
		}
		if t.kind == urlPath && i > 0 && toPath[tokens[i-1].text] {
			out = append(out, "<topath>") // "kicks me to /login", "check it's /pricing": where the page ends up
		}
		switch host := hostOf(t.text); {
		case search.DatabaseOf(t.text) != "":
			out = append(out, search.Stem(search.DatabaseOf(t.text))) // postgres://...: that database
		case strings.Contains(t.text, "/api"), strings.HasPrefix(host, "api."), apiPath.MatchString(t.text), siteFile.MatchString(t.text):
			out = append(out, "<api>")
			if siteFile.MatchString(t.text) {
				out = append(out, "<sitefile>") // robots.txt: a text the site serves
			}
		case host == "github.com":
			out = append(out, "<repo>")
		case strings.HasSuffix(strings.TrimRight(t.text, "/"), "/mcp"), strings.HasSuffix(t.text, "/sse"), strings.HasPrefix(host, "mcp."):
			out = append(out, "<mcpurl>")
		case t.kind == link && dbHosts[strings.SplitN(host, ".", 2)[0]] != "":
			out = append(out, search.Stem(dbHosts[strings.SplitN(host, ".", 2)[0]])) // redis.staging.internal: that database, not a page
		case t.kind == link && dbPorts[portOf(t.text)] != "":
			out = append(out, search.Stem(dbPorts[portOf(t.text)])) // localhost:6379 is Redis, not a page
		case t.kind == link && !strings.Contains(t.text, "://") && dbNamedIn(tokens) != "":
			out = append(out, dbNamedIn(tokens)) // redis (localhost:6380): the database the clause names
		case t.kind == link:
			out = append(out, "<page>")
		}
	case selector:
		if strings.HasPrefix(t.text, "select") {
			out = append(out, "<selectel>") // select#slot: a select element
		}
		if i > 0 && (tokens[i-1].text == "in" || tokens[i-1].text == "from") {
			out = append(out, "<inselector>") // "pick 'Eastside' in #pickup-branch": a value of the element
		}
	case quoted:
		if strings.Contains(t.text, "{{") {
			out = append(out, "<tmpl>") // 'Hi {{name}}': a template to fill
		}
		if i+2 < len(tokens) && tokens[i+1].text == "as" && tokens[i+2].kind == word && i > 0 && pickVerbs[tokens[i-1].text] {
			out = append(out, "<inselector>") // "pick 'Cat' as species": a value of a field, a select's
		}
		if i+1 < len(tokens) && tokens[i+1].kind == word && elementNouns[tokens[i+1].text] {
			out = append(out, "<named>") // the 'You are offline' banner: an element by its name
		}
		switch t.raw {
		case "`":
			out = append(out, "<command>") // `npm run migrate`
		case "{":
			out = append(out, "<json>") // {"id": 1}: a value to work on
		}
		if next := tokens[i+1 : min(i+3, len(tokens))]; slices.ContainsFunc(next, func(t token) bool { return t.kind == word && t.stem == connectionStem }) {
			out = append(out, "<namedconn>") // the 'local' connection: one open already
		}
	case punct:
		if t.text != "->" || i == 0 || i+1 == len(tokens) {
			break
		}
		before, after := tokens[i-1], tokens[i+1]
		if uiStep(before, after) {
			out = append(out, "<uistep>") // /p/vb-tv-55oled -> 'Reserve & collect', Marketing → Vouchers: a click on the way
		}
		if before.kind == quoted && after.kind == quoted {
			out = append(out, "<inputgives>") // email 'anna@@x' -> 'Enter a valid email': a value typed, the message it gets
		}
	case statement:
		if strings.Contains(strings.TrimRight(t.text, "; "), ";") {
			out = append(out, "<sqls>") // statements that go together: a transaction
		}
	case file:
		if dbFile.MatchString(t.text) {
			out = append(out, "<dbfile>")
		}
		if strings.HasSuffix(strings.ToLower(t.text), ".sql") {
			out = append(out, "<sqlfile>") // a migration, a schema: a database's
		}
		if strings.HasSuffix(strings.ToLower(t.text), ".pdf") {
			out = append(out, "<pdf>")
		}
		if lower := strings.ToLower(t.text); strings.Contains(lower, "schema") && !strings.HasSuffix(lower, ".sql") {
			out = append(out, "schema") // user.schema.json names a schema
		}
		if lower := strings.ToLower(t.text); strings.HasPrefix(lower, ".github/") {
			out = append(out, search.Stem("github")) // .github/workflows/ci.yml is a repository's
		} else if strings.HasSuffix(lower, ".json") && (strings.Contains(lower, "auth") || strings.Contains(lower, "state")) && !(i > 0 && fileRemovers[tokens[i-1].text]) {
			out = append(out, search.Stem("storage")+" "+search.Stem("state")) // auth/admin.json: a saved login
		}
		if lower := strings.ToLower(t.text); strings.HasSuffix(lower, ".spec.ts") || strings.HasSuffix(lower, ".spec.js") || strings.HasSuffix(lower, ".test.ts") {
			out = append(out, "<spec>") // tests/cancel.spec.ts: a Playwright test file
		}
		if lower := strings.ToLower(t.text); strings.Contains(lower, ".tpl") || strings.Contains(lower, ".tmpl") {
			out = append(out, search.Stem("template")) // report.tpl.html is a template
		}
		if !strings.Contains(path.Base(t.text), ".") {
			out = append(out, "<dir>") // fixtures/uploads: a folder
		}
		if lower := strings.ToLower(t.text); composeFile.MatchString(lower) {
			out = append(out, search.Stem("compose")) // docker-compose.test.yml names a stack
		} else if strings.HasSuffix(lower, ".yml") || strings.HasSuffix(lower, ".yaml") {
			out = append(out, "<yml>") // e2e.yml: in a repository's request, a workflow
		} else if strings.HasSuffix(lower, "dockerfile") {
			out = append(out, search.Stem("dockerfile"))
		}
		if lower := strings.ToLower(t.text); strings.Contains(lower, "baseline") || strings.HasPrefix(lower, "perf/") {
			out = append(out, search.Stem("baseline")) // perf/baseline.json: a performance baseline
		}
		if strings.Contains(strings.ToLower(t.text), "junit") {
			out = append(out, "junit") // test-results/junit.xml: a test report
		}
		if lower := strings.ToLower(t.text); strings.HasSuffix(lower, ".md") && strings.Contains(lower, "plan") {
			out = append(out, "<plan>") // plan.md, docs/TEST_PLAN.md: plan_read's
		}
	}
	return out
}

// uiStep says whether an arrow from before to after is a step on a page:
// from a page's path to a button's quoted name, or from one menu's
// name (written with a capital) to the next.
func uiStep(before, after token) bool {
	switch {
	case before.kind == urlPath || before.kind == link:
		return after.kind == quoted
	case before.kind == word && after.kind == word:
		b, _ := utf8.DecodeRuneInString(before.raw)
		a, _ := utf8.DecodeRuneInString(after.raw)
		return unicode.IsUpper(b) && unicode.IsUpper(a)
	}
	return false
}

// apiPath is a path an API serves, not a page: a version (/v1/), GraphQL,
// a health check, auth, metrics, a JSON document.
var apiPath = regexp.MustCompile(`(?i)/v\d+/|/graphql\b|/healthz?\b|/readyz\b|/livez\b|/auth/|/oauth/|/metrics\b|/rpc\b|\.json(?:\?|$)`)

// composeFile is a Compose file's name: compose.yaml,
// docker-compose.test.yml, e2e/compose.ci.yaml.
var composeFile = regexp.MustCompile(`(^|/)(docker-)?compose[\w.-]*\.ya?ml$`)

// boundWords bound a value when an amount follows: "under 500 ms", "at
// most 3", "more than 30 days".
var boundWords = wordSet(`under below within over above than most least between exceed exceeds exceeding maximum minimum max min`)

// boundedBy says whether an amount comes next ("under about 2 s").
func boundedBy(next []token) bool {
	for _, t := range next[:min(2, len(next))] {
		switch {
		case t.kind == number && t.text[0] >= '0' && t.text[0] <= '9', t.kind == word && measureLike.MatchString(t.text):
			return true
		case t.kind != word || !approxWords[t.text]:
			return false
		}
	}
	return false
}

var approxWords = wordSet(`about around roughly approximately approx the a our its their`)

// statusBefore are the words an HTTP status follows.
var statusBefore = wordSet(`return returns returned respond responds answer answers status code with should expect expects get gets is are be a`)

// modals begin a check after a comma and a word or two ("..., we should
// be on /x", "..., the badge must say 1").
// whenDone says whether the words at i say when the next step comes:
// "when it's done", "once it finishes", "after it passes".
func whenDone(tokens []token, i int) bool {
	if t := tokens[i]; t.kind != word || t.text != "when" && t.text != "once" && t.text != "after" {
		return false
	}
	for _, t := range tokens[i+1 : min(i+5, len(tokens))] {
		if t.kind == word && doneWords[t.text] {
			return true
		}
	}
	return false
}

var doneWords = wordSet(`done finished finishes finish completes completed passes passed ends ended green`)

// checkVerbs begin a check ("expect a 200 and the token should be a
// string" is one).
var checkVerbs = wordSet(`check verify assert ensure confirm expect`)

// modalSoon says whether a modal ("should", "must") comes within four
// words from i, before any mark or verb: "the 'card declined' message
// should show".
func modalSoon(tokens []token, i int) bool {
	for j := i; j < min(i+4, len(tokens)); j++ {
		switch t := tokens[j]; {
		case t.kind == punct, t.kind == word && stepStarters[t.text]:
			return false
		case t.kind == word && modals[t.text]:
			return true
		}
	}
	return false
}

var modals = wordSet(`should must shall shouldn mustn`)

// prepositions stand between a number and what it is not a count of
// ("5000 for Stalls").
var prepositions = wordSet(`for of in on at to by with per from than over under`)

// notCounted are plural nouns a number goes with that are not things on a
// page to count.
var notCounted = wordSet(`second minute hour day millisecond run time user siz size width request`)

var dbFile = regexp.MustCompile(`\.(?:db|sqlite3?)$`)

func countKind(tokens []token, k kind) int {
	n := 0
	for _, t := range tokens {
		if t.kind == k {
			n++
		}
	}
	return n
}

// hostOf is the host of a URL or of host/path, lower case.
func hostOf(s string) string {
	host, _, _ := strings.Cut(authority(s), ":")
	return host
}

// dbPorts are the ports databases listen on by default: a link to one
// (localhost:5432) names the database, not a page.
var dbPorts = map[string]string{"5432": "postgres", "6379": "redis"}

// dbNamedIn is the stem of the database a clause names by name, if any.
func dbNamedIn(tokens []token) string {
	for _, t := range tokens {
		if t.kind == word && (t.text == "redis" || t.text == "postgres" || t.text == "postgresql") {
			return t.stem
		}
	}
	return ""
}

// portOf is a link's port ("" when it gives none).
func portOf(s string) string {
	_, port, _ := strings.Cut(authority(s), ":")
	return port
}

// authority is the host[:port] of a URL or of host/path, lower case.
func authority(s string) string {
	s = strings.ToLower(s)
	if _, rest, ok := strings.Cut(s, "://"); ok {
		s = rest
	}
	if i := strings.IndexAny(s, "/?#"); i >= 0 {
		s = s[:i]
	}
	return s
}

var kindName = map[kind]string{word: "word", number: "number", quoted: "quoted", link: "link", urlPath: "path", file: "file", repoRef: "repo", punct: "punct", script: "js", pattern: "regex", statement: "sql", selector: "selector"}

func wordSet(s string) map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(s) {
		m[w] = true
	}
	return m
}
