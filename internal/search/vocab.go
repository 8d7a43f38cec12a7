package search

import (
	"slices"
	"strings"
)

// The domain's vocabulary: what a QA engineer or a developer calls one
// thing by several names. It holds words of the trade, not words of any
// one tool (a tool's own words are its Phrases, written where it is
// defined), and it applies alike to the tools' texts and to queries.

// same are the names of one thing; each line is a group, its first name
// is the term the others become. A name may be several words.
var same = []string{
	"pr | pull request | merge request",
	"ci | continuous integration | github actions | gh actions | workflow | ci pipeline | build pipeline | ci job",
	"repo | repository",
	"flaky | flake | flakey | flakiness | intermittent | intermittently | nondeterministic | non deterministic | unstable",
	"mcp server | upstream | upstream server | hosted server | hosted mcp server | mcp upstream",
	"login | log in | sign in | signin | log on | logon",
	"logout | log out | sign out | signout",
	"signup | sign up",
	"database | db",
	"postgres | postgresql | pg | psql",
	"sqlite | sqlite3",
	"directory | folder | dir",
	"file | fs",
	"screenshot | screen shot | screen capture | screengrab",
	"accessibility | a11y | wcag",
	"javascript | js",
	"typescript | ts",
	"environment | env",
	"regex | regexp | regular expression",
	"status code | http status | http code | response code",
	"e2e | end to end",
	"kv | key value",
	"compose | docker compose | compose stack | compose project",
	"worker | igor",
	"subagent | sub agent",
	"toolbag | tool bag",
	"markdown | md",
	"base64 | b64",
	"dropdown | drop down | select box | combo box | combobox",
	"checkbox | check box | tick box",
	"timezone | time zone",
	"localstorage | local storage",
	"sessionstorage | session storage",
	"github | gh",
	"json schema | jsonschema",
	"url | uri",
	"stdout | standard output",
	"cleanup | clean up",
	"setup | set up",
	"check | verify | assert | ensure | confirm | make sure | fail the test if | fail the step if | fail the check if | fail if | fail otherwise | should fail if not | test should fail if not | test fails if not",
	"delete | remove | rm | erase | get rid of | throw away",
	"teardown | tear down",
	"container | ctr",
	"release | let go of | let go",
	"standard deviation | std dev | stddev | stdev",
	"reload | f5",
	"disconnect | hang up",
	"exist | exists | is there | are there",
	"cancel | call off",
	"snapshot | point in time copy",
	"rename | change the name | give a new name",
	"connect | hook up | plug in",
	"sha256 | sha 256",
	"sha1 | sha 1",
	"sha512 | sha 512",
	"count | how many",
	filler + " | right now | at the moment | just now",
	"mkdir | make a folder | make a directory | create a folder | create a directory | make the folder | create the folder | make a new directory | make a new folder",
}

// filler is the term of phrases that say nothing of which tool is
// wanted ("right now"): they are dropped. It is no word's, so a query
// that says "filler" keeps it.
const filler = ""

// near are words of related meaning: a query's word brings the others of
// its group in at weightNear of its own weight.
var near = []string{
	"delete destroy purge drop discard trash nuke",
	"list show enumerate ls display dump",
	"create make new add",
	"run execute exec launch invoke trigger kick",
	"stop halt kill terminate abort cancel",
	"check validate expect",
	"compare diff difference differ",
	"read get fetch view cat",
	"write save store persist dump",
	"copy duplicate cp clone",
	"move rename mv shift relocate transfer",
	"find search locate lookup grep",
	"wait sleep pause delay",
	"close quit exit",
	"download pull",
	"upload attach",
	"hover pointer",
	"title heading",
	"log output stdout stderr",
	"error failure fail broken crash",
	"slow slowest timing duration latency",
	"summary overview summarize recap",
	"recent latest newest",
	"clean cleanup prune tidy",
	"running alive",
	"health healthy ping alive",
	"fake mock dummy synthetic sample fixture stub intercept",
	"clear wipe reset empty",
	"parallel concurrent concurrently simultaneous simultaneously",
	"issue bug ticket",
	"hash checksum digest fingerprint md5 sha1 sha256 sha512",
	"page webpage site website",
	"click tap hit",
	"type enter",
	"token credential password secret",
	"percentile median mean average p50 p75 p90 p95 p99 p999 statistic",
	"combine merge aggregate",
	"dynamic custom dyn",
	"snapshot checkpoint snap",
	"equal equals exactly identical",
	"zip compress pack",
	"text words wording",
	"connect register",
	"squad team crew group",
	"decode decipher gibberish",
	"offline disconnected",
	"indent prettify beautify reformat",
}

// weightNear is a related word's share of the weight of the query word
// that brought it.
const weightNear = 0.5

// phrases maps a name's first word to the names it starts, longest first;
// related maps a word to the others of its near group.
var (
	phrases = map[string][]phrase{}
	related = map[string][]string{}
)

type phrase struct {
	words []string
	canon string
}

func init() {
	for _, line := range same {
		names := strings.Split(line, "|")
		canon := strings.Join(words(names[0], false), "_")
		for _, name := range names {
			ws := words(name, false)
			if len(ws) == 0 {
				continue
			}
			phrases[ws[0]] = append(phrases[ws[0]], phrase{words: ws, canon: canon})
		}
	}
	for _, ps := range phrases {
		// Longest first, so that "hosted mcp server" wins over "hosted server".
		slices.SortStableFunc(ps, func(x, y phrase) int { return len(y.words) - len(x.words) })
	}
	for _, line := range near {
		var group []string
		for _, w := range strings.Fields(line) {
			group = append(group, canonical(Stem(w)))
		}
		for _, w := range group {
			for _, o := range group {
				if o != w {
					related[w] = append(related[w], o)
				}
			}
		}
	}
	statusKind, sqliteKind, postgresKind, dirKind = Terms("http status")[0], Terms("sqlite")[0], Terms("postgres")[0], Terms("folder")[0]
	jsKind, envKind, base64Kind, githubKind, specKind = Terms("javascript")[0], Terms("environment")[0], Terms("base64")[0], Terms("github")[0], Terms("playwright")[0]
	viewportKind, templateKind = Terms("viewport")[0], Terms("template")[0]
}

// The terms of the kinds of values a query holds (terms.go), set once
// the vocabulary above is read: an HTTP status, SQLite's, PostgreSQL's,
// a folder, a script, an environment variable, an encoded value, a
// repository's file, a Playwright spec, a window's size, a template.
var statusKind, sqliteKind, postgresKind, dirKind, jsKind, envKind, base64Kind, githubKind, specKind, viewportKind, templateKind string

// phraseAt reports the term of the domain name that ws starts with, and
// how many words it takes; 0 when it starts none.
func phraseAt(ws []string) (string, int) {
	for _, p := range phrases[ws[0]] {
		if len(p.words) > len(ws) {
			continue
		}
		match := true
		for i, w := range p.words {
			if ws[i] != w {
				match = false
				break
			}
		}
		if match {
			return p.canon, len(p.words)
		}
	}
	return "", 0
}

// canonical is the term a one-word name becomes.
func canonical(w string) string {
	if c, n := phraseAt([]string{w}); n == 1 {
		return c
	}
	return w
}
