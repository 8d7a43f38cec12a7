package search

import (
	"fmt"
	"math"
	"slices"
	"testing"

	"github.com/barrhawk/barrhawk/internal/schema"
	"github.com/barrhawk/barrhawk/internal/tool"
)

func TestTerms(t *testing.T) {
	t.Parallel()
	for in, want := range map[string][]string{
		"Generate fake_users, please!":         {"generat", "fake", "user"},
		"the tests are failing":                {"test", "fail"},
		"strings and statuses":                 {"string", "status"},
		"flaky CI runs in 2026":                {"flaki", "ci", "run", "2026"},
		"open a Pull Request; list PRs":        {"open", "pr", "list", "pr"},
		"which containers contain errors":      {"which", "container", "contain", "error"},
		"summarise vs summarize, analyse":      {"summar", "vs", "summar", "analyz"},
		"log in, then sign in and logging in":  {"login", "login", "login"},
		"hosted MCP servers and an upstream":   {"mcp_server", "mcp_server"},
		"what's the HTTP status code?":         {"what", "status_code", "code"},
		"GitHub Actions workflow, CI pipeline": {"ci", "ci", "ci"},
	} {
		if got := Terms(in); !slices.Equal(got, want) {
			t.Errorf("Terms(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestIdentTermsSplitCamelCase(t *testing.T) {
	t.Parallel()
	if got, want := identTerms("testName maxResults"), []string{"test", "name", "max", "result"}; !slices.Equal(got, want) {
		t.Errorf("identTerms = %q, want %q", got, want)
	}
	if got, want := Terms("GitHub JavaScript"), []string{"github", "javascript"}; !slices.Equal(got, want) {
		t.Errorf("Terms = %q, want %q", got, want)
	}
}

func mk(name, desc string, cat tool.Category, phrases ...string) *tool.Tool {
	return &tool.Tool{Def: tool.Def{Name: name, Description: desc, Category: cat, Phrases: phrases,
		Input: schema.Object(schema.String("text", "Text to work on"))}}
}

func TestSearchRanksByFieldAndVocabulary(t *testing.T) {
	t.Parallel()
	ix := New([]*tool.Tool{
		mk("hash_text", "Hash text with md5 or sha256.", tool.CategoryUtility),
		mk("text_stats", "Counts of a text. Mentions hash length in passing.", tool.CategoryUtility),
		mk("worker_status", "Health of the workers.", tool.CategoryMeta),
		mk("docker_ps", "List containers as a table.", tool.CategoryDocker, "which containers are up"),
		mk("gh_pr_list", "Pull requests of a repository.", tool.CategoryGitHub, "review queue"),
	})
	first := func(q string, cat tool.Category) string {
		if hits := ix.Search(q, 5, cat); len(hits) > 0 {
			return hits[0].Tool.Name
		}
		return ""
	}
	for q, want := range map[string]string{
		"checksum":                 "hash_text", // a related word
		"hash":                     "hash_text", // the first sentence over the rest
		"worker_status":            "worker_status",
		"what is up right now":     "docker_ps",  // a phrase
		"open PRs":                 "gh_pr_list", // the domain's name for a thing
		"the review queue of repo": "gh_pr_list",
	} {
		if got := first(q, ""); got != want {
			t.Errorf("%q: first %q, want %q", q, got, want)
		}
	}
	if got := first("hash", tool.CategoryMeta); got != "" {
		t.Errorf("category filter: %q", got)
	}
	if hits := ix.Search("the a of", 5, ""); len(hits) != 0 {
		t.Errorf("filler words alone match nothing: %v", hits)
	}
}

func TestArgumentsManyToolsShareAreNotIndexed(t *testing.T) {
	t.Parallel()
	var tools []*tool.Tool
	for _, n := range []string{"a_one", "b_two", "c_three", "d_four"} {
		tools = append(tools, &tool.Tool{Def: tool.Def{Name: n, Description: "Does " + n + ".",
			Input: schema.Object(schema.String("testName", "The name the record of flaky tests keeps"))}})
	}
	tools = append(tools, &tool.Tool{Def: tool.Def{Name: "e_five", Description: "Does five.",
		Input: schema.Object(schema.String("recordId", "The record of flaky tests to read"))}})
	hits := New(tools).Search("record of flaky tests", 5, "")
	if len(hits) != 1 || hits[0].Tool.Name != "e_five" {
		t.Errorf("an argument of four tools ranked them: %v", hits)
	}
}

func TestStemKeepsMeaningsApart(t *testing.T) {
	t.Parallel()
	for _, pair := range [][2]string{{"containers", "contains"}, {"settings", "set"}, {"images", "imagine"}} {
		if Stem(pair[0]) == Stem(pair[1]) {
			t.Errorf("%q and %q have one stem %q", pair[0], pair[1], Stem(pair[0]))
		}
	}
	for _, pair := range [][2]string{{"running", "runs"}, {"prioritise", "prioritize"}, {"analysed", "analyzed"}, {"colour", "color"}} {
		if Stem(pair[0]) != Stem(pair[1]) {
			t.Errorf("%q and %q: stems %q and %q", pair[0], pair[1], Stem(pair[0]), Stem(pair[1]))
		}
	}
}

func BenchmarkTerms(b *testing.B) {
	for b.Loop() {
		Terms("find which of our tests are flaky from the last ten CI runs")
	}
}

func TestValuesCountByTheirKind(t *testing.T) {
	t.Parallel()
	for q, want := range map[string]struct {
		words string
		kinds []string
	}{
		"delete ./tmp/cache":                       {"delete", []string{"file"}},
		"cat package.json":                         {"cat", []string{"file"}},
		"open https://shop.example.com/cart today": {"open today", []string{"url"}},
		"click #submit and button.save":            {"click and", []string{"element", "element"}},
		"sha256 of the string 'hello world'":       {"sha256 of the string", nil},
		"read key session:abc123 from redis":       {"read key from redis", []string{"key"}},
		"run a redis:7 container":                  {"run a container", []string{"image"}},
		"fill {{name}} in":                         {"fill in", []string{templateKind}},
		"fill in 'Hi {{name}}' with name=Ana":      {"fill in with name=Ana", []string{templateKind}},
		"make the viewport 375x812":                {"make the viewport", []string{viewportKind}},
		"is there a .env.test here":                {"is there a here", []string{"file"}},
		"add 30 days to 2024-02-15":                {"add 30 days to", []string{"date"}},
		"diff v1.2.0 and v1.3.0":                   {"diff and", []string{"version", "version"}},
		"save it as invoice.pdf":                   {"save it as", []string{"file", "pdf"}},
		"I/O errors and/or console.warn output":    {"I/O errors and or console.warn output", nil},
		`does ^\d{3}-\d{4}$ match it`:              {"does match it", []string{"regex"}},
		`compare {"a": 1} with [1,2]`:              {"compare with", []string{"json", "array"}},
		"HGETALL user:ada":                         {"HGETALL", []string{"redis", "key"}},
		"run SELECT id FROM users":                 {"run SELECT id FROM users", []string{"sql", postgresKind}},
		"run SELECT id FROM users in app.db":       {"run SELECT id FROM users in", []string{"sql", "file", sqliteKind}},
		"start postgres:16 with POSTGRES_DB=shop":  {"start with", []string{"image", envKind}},
		"p50/p95 of 4xx/5xx latencies":             {"p50 p95 of 4xx 5xx latencies", nil},
		"open ./app.db read-only":                  {"open read-only", []string{"file", sqliteKind}},
		"zip test-results/ now":                    {"zip now", []string{"file", dirKind}},
		"run document.title in the page":           {"run in the page", []string{jsKind}},
		"connect to redis://localhost:6379/2":      {"connect to", []string{Terms("redis")[0]}},
		"wtf is 499":                               {"wtf is 499", []string{statusKind}},
		"it took 500 ms":                           {"it took 500 ms", nil},
		"parse '/a/b?x=1' for me":                  {"parse for me", []string{"url"}},
		"what's in cWFfdXNlcjpXaW50ZXIyMDI0IQ==":   {"what's in", []string{base64Kind}},
		"read .github/workflows/e2e.yml":           {"read", []string{githubKind}},
		"export it as login.spec.ts":               {"export it as", []string{specKind}},
		"open a second tab":                        {"open a tab", nil},
		"the latest build/test jobs":               {"the latest build test jobs", nil},
		"GET https://api.example.test/v1/items/3":  {"GET", []string{"http", "url"}},
		"GET session:abc in redis":                 {"GET in redis", []string{"redis", "key"}},
		"fill 'Hi {{name}}' w/ name=Ana":           {"fill with name=Ana", []string{templateKind}},
		"split the A/B test":                       {"split the A B test", nil},
	} {
		words, kinds := values(q)
		if words != want.words || !slices.Equal(kinds, want.kinds) {
			t.Errorf("values(%q) = %q %q, want %q %q", q, words, kinds, want.words, want.kinds)
		}
	}
}

// A value's name gives its words beside its kind: a file's, a key's, an
// image's, not a URL's.
func TestValuesGiveTheirNames(t *testing.T) {
	t.Parallel()
	for q, want := range map[string]string{
		"make payloads that satisfy order.schema.json": "order schema",
		"turn on feature:newCheckout":                  "feature new Checkout",
		"stop docker-compose.test.yml":                 "docker compose test",
		"open https://shop.example.com/cart":           "",
	} {
		if _, _, names := valuesAndNames(q); names != want {
			t.Errorf("valuesAndNames(%q) names %q, want %q", q, names, want)
		}
	}
}

// A question that asks for no change counts the tools that change
// things less; a request put as a question, or one that asks for a
// change too, does not.
func TestAsks(t *testing.T) {
	t.Parallel()
	for q, want := range map[string]bool{
		"what PRs are open on acme/web?":               true,
		"show me recently merged pull requests":        true,
		"did my queued build get retried?":             true,
		"which PRs are open? merge the green ones":     false,
		"show me the open PRs and merge the green one": false,
		"can we stop that job?":                        false,
		"merge PR 12":                                  false,
		"is there a tool that creates PRs? create one": false,
	} {
		if got := asks(q); got != want {
			t.Errorf("asks(%q) = %v, want %v", q, got, want)
		}
	}
}

// A request's leading verb is found past the politeness before it, and
// brings its related words at half weight; a question has none.
func TestLeadTerms(t *testing.T) {
	t.Parallel()
	for q, want := range map[string]string{
		"stop the api container":           Terms("stop")[0],
		"please remove the container web":  Terms("delete")[0],
		"can we launch a browser?":         Terms("launch")[0],
		"what containers are running?":     "",
		"I want to merge PR 12 into main.": Terms("merge")[0],
	} {
		got := leadTerms(q)
		if want == "" {
			if got != nil {
				t.Errorf("leadTerms(%q) = %v, want none", q, got)
			}
			continue
		}
		if got[want] != 1 {
			t.Errorf("leadTerms(%q) = %v, want %q at 1", q, got, want)
		}
	}
	if got := leadTerms("stop it"); got[Terms("cancel")[0]] != weightNear {
		t.Errorf("stop's related words: %v, want cancel at %v", got, weightNear)
	}
}

func TestExplainSumsToTheScore(t *testing.T) {
	t.Parallel()
	ix := New([]*tool.Tool{
		mk("docker_ps", "List containers as a table.", tool.CategoryDocker, "which containers are up"),
		mk("docker_logs", "Logs of a container.", tool.CategoryDocker),
	})
	for _, q := range []string{"which containers are up", "list the docker containers", "what do the docker logs say?"} {
		hits := ix.Search(q, 1, "")
		sum := 0.0
		for _, s := range ix.Explain(q, hits[0].Tool.Name) {
			sum += s
		}
		if math.Abs(sum-hits[0].Score) > 1e-9 {
			t.Errorf("%q: %s scores %.3f, explained %.3f", q, hits[0].Tool.Name, hits[0].Score, sum)
		}
	}
}

func TestStemCacheIsBounded(t *testing.T) {
	for i := range maxStems + 1000 {
		Stem(fmt.Sprintf("unseenword%d", i))
	}
	if n := stemsHeld.Load(); n > maxStems {
		t.Errorf("the stem cache holds %d words, bound %d", n, maxStems)
	}
	if Stem("containers") != "container" {
		t.Error("a full cache stems all the same")
	}
}

// TestRequestsAboutTools: asking which tool does some work is
// tool_search's, asking what a request takes is intent_analyze's, however
// strongly the work's words match another tool; asking what a set of
// tools holds is not.
func TestRequestsAboutTools(t *testing.T) {
	t.Parallel()
	ix := New([]*tool.Tool{
		mk("tool_search", "Find tools, listed or not, by what you want done.", tool.CategoryMeta),
		mk("intent_analyze", "Analyse a request: its domains and the tools it needs.", tool.CategoryMeta),
		mk("tool_call", "Call any tool by name, listed or not.", tool.CategoryMeta),
		mk("browser_screenshot", "Take a screenshot of the page.", tool.CategoryBrowser, "screenshot", "capture the page"),
		mk("mcp_catalog", "The tools of the hosted MCP servers.", tool.CategoryGateway, "what tools do the hosted servers expose"),
	})
	for q, want := range map[string]string{
		"which tool should I use to take a screenshot of a page?":     "tool_search",
		"is there anything in here that can take screenshots?":        "tool_search",
		"take a screenshot of the page":                               "browser_screenshot",
		"what does this request really want: 'screenshot the page'?":  "intent_analyze",
		"what tools do the hosted MCP servers expose?":                "mcp_catalog",
		"figure out the goal behind this call: browser_screenshot {}": "intent_analyze",
		"what is this ask actually after: 'screenshot the page'":      "intent_analyze",
		"what's this ticket asking for: 'screenshot the page'?":       "intent_analyze",
		"is there anything in the toolbox that can take screenshots?": "tool_search",
	} {
		if hits := ix.Search(q, 3, ""); len(hits) == 0 || hits[0].Tool.Name != want {
			t.Errorf("%q: first %v, want %s", q, hits, want)
		}
	}
}

// A label a request begins with ("Next step:", "Step 3:") says where it
// stands, and what it is for ("so the wizard starts over") counts less
// than what it asks.
func TestLabelAndPurpose(t *testing.T) {
	t.Parallel()
	for q, want := range map[string]string{
		"Next step: fetch the cookie": "fetch the cookie",
		"Step 3: reload the page":     "reload the page",
		"Agent - list the jobs":       "list the jobs",
		"next steps for the release":  "next steps for the release",
	} {
		if got := unlabel(q); got != want {
			t.Errorf("unlabel(%q) = %q, want %q", q, got, want)
		}
	}
	for q, want := range map[string][2]string{
		"Wipe this tab's session storage so the wizard starts over": {"Wipe this tab's session storage", " so the wizard starts over"},
		"do it so":                         {"do it so", ""},
		"save the file now because we can": {"save the file now", " because we can"},
		"save it because we can":           {"save it because we can", ""}, // too short to hold a purpose
	} {
		if what, why := purpose(q); what != want[0] || why != want[1] {
			t.Errorf("purpose(%q) = %q, %q, want %q, %q", q, what, why, want[0], want[1])
		}
	}
}

// What a request says not to do ("don't release it yet", "no click")
// counts little.
func TestNegated(t *testing.T) {
	t.Parallel()
	for q, want := range map[string][2]string{
		"press and hold ctrl (don't release it yet)":   {"press and hold ctrl ( )", "release it yet"},
		"move the mouse to 100, 200, no click":         {"move the mouse to 100, 200,  ", "click"},
		"sign in without going through the login form": {"sign in  ", "going through the login form"},
		"check the banner is not visible":              {"check the banner is not visible", ""},
	} {
		if what, not := negated(q); what != want[0] || not != want[1] {
			t.Errorf("negated(%q) = %q, %q, want %q, %q", q, what, not, want[0], want[1])
		}
	}
}
