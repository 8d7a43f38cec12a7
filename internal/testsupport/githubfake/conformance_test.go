package githubfake

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/barrhawk/barrhawk/internal/testsupport/testbin"
)

// exchange is one recorded request and answer of @octokit/fixtures.
type exchange struct {
	Method     string         `json:"method"`
	Path       string         `json:"path"`
	Body       any            `json:"body"`
	Status     int            `json:"status"`
	Response   any            `json:"response"`
	Headers    map[string]any `json:"headers"`
	ReqHeaders map[string]any `json:"reqheaders"`
}

func loadScenario(t *testing.T, name string) []exchange {
	t.Helper()
	rel := "@octokit/fixtures/scenarios/api.github.com/" + name + "/normalized-fixture.json"
	dir := testbin.GitHubAPI(t, rel)
	data, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(rel)))
	if err != nil {
		t.Fatal(err)
	}
	var xs []exchange
	if err := json.Unmarshal(data, &xs); err != nil {
		t.Fatalf("decode %s: %v", rel, err)
	}
	return xs
}

// topKeys is the set of top-level keys of a JSON object, or of the first
// item of a JSON list.
func topKeys(v any) []string {
	if l, ok := v.([]any); ok && len(l) > 0 {
		v = l[0]
	}
	m, _ := v.(map[string]any)
	return sortedKeys(m)
}

// missing lists the keys of want that got lacks.
func missing(want, got []string) []string {
	have := map[string]bool{}
	for _, k := range got {
		have[k] = true
	}
	var out []string
	for _, k := range want {
		if !have[k] {
			out = append(out, k)
		}
	}
	return out
}

var (
	requestIDRe = regexp.MustCompile(`^[0-9A-F]+:[0-9A-F]+:[0-9A-F]+:[0-9A-F]+:[0-9A-F]+$`)
	numberRe    = regexp.MustCompile(`^[0-9]+$`)
)

// compareExchange replays x against the fake (with the path given, when
// the fake's differs) and compares status, top-level keys of the body,
// and the headers GitHub sent: present, and shaped alike.
func compareExchange(t *testing.T, c client, x exchange, path string, body any) answer {
	t.Helper()
	if path == "" {
		path = x.Path
	}
	if body == nil && x.Body != "" {
		body = x.Body
	}
	var hdr []string
	if a, ok := x.ReqHeaders["accept"].(string); ok {
		hdr = append(hdr, "Accept", a)
	}
	a := c.do(strings.ToUpper(x.Method), path, body, hdr...)
	if a.status != x.Status {
		t.Fatalf("%s %s: status %d, recorded %d; body %s", x.Method, path, a.status, x.Status, a.raw)
	}
	if m := missing(topKeys(x.Response), topKeys(a.body)); len(m) > 0 {
		t.Errorf("%s %s: the answer lacks recorded keys %v", x.Method, path, m)
	}
	for name := range x.Headers {
		got := a.header.Get(name)
		switch {
		case strings.HasPrefix(name, "x-ratelimit-") && name != "x-ratelimit-resource":
			if !numberRe.MatchString(got) {
				t.Errorf("%s %s: %s %q is not a number", x.Method, path, name, got)
			}
		case name == "x-ratelimit-resource", name == "x-github-media-type", name == "content-type":
			if want := x.Headers[name].(string); got != want {
				t.Errorf("%s %s: %s %q, recorded %q", x.Method, path, name, got, want)
			}
		case name == "x-github-request-id":
			if !requestIDRe.MatchString(got) {
				t.Errorf("%s %s: X-GitHub-Request-Id %q", x.Method, path, got)
			}
		case name == "etag", name == "location", name == "link", name == "cache-control", name == "access-control-expose-headers":
			if got == "" {
				t.Errorf("%s %s: no %s header; recorded %v", x.Method, path, name, x.Headers[name])
			}
		}
	}
	return a
}

// fixtureOrg is the owner of the recorded repositories.
const fixtureOrg = "octokit-fixture-org"

func startForFixtures(t *testing.T) (*Server, client) {
	t.Helper()
	s := Start(t, Options{Orgs: []string{fixtureOrg}})
	return s, client{t: t, s: s, token: s.Token()}
}

func TestConformanceGetRepository(t *testing.T) {
	s, c := startForFixtures(t)
	s.AddRepo(fixtureOrg, "hello-world", Repo{DefaultBranch: "master", Files: map[string]string{"README.md": "# hello-world"}})
	x := loadScenario(t, "get-repository")[0]
	a := compareExchange(t, c, x, "", nil)
	rec := x.Response.(map[string]any)
	for _, k := range []string{"name", "full_name", "private", "default_branch", "visibility"} {
		if a.obj()[k] != rec[k] {
			t.Errorf("%s = %v, recorded %v", k, a.obj()[k], rec[k])
		}
	}
	noViolations(t, s)
}

func TestConformanceGetContent(t *testing.T) {
	s, c := startForFixtures(t)
	s.AddRepo(fixtureOrg, "hello-world", Repo{DefaultBranch: "master", Files: map[string]string{"README.md": "# hello-world"}})
	xs := loadScenario(t, "get-content")
	dir := compareExchange(t, c, xs[0], "", nil)
	rec := xs[0].Response.([]any)[0].(map[string]any)
	got := dir.list()[0].(map[string]any)
	// The blob sha is git's, so it is the one GitHub recorded.
	for _, k := range []string{"name", "path", "sha", "size", "type"} {
		if got[k] != rec[k] {
			t.Errorf("%s = %v, recorded %v", k, got[k], rec[k])
		}
	}
	raw := compareExchange(t, c, xs[1], "", nil)
	if string(raw.raw) != xs[1].Response {
		t.Errorf("raw content %q, recorded %q", raw.raw, xs[1].Response)
	}
	noViolations(t, s)
}

func TestConformanceCreateFile(t *testing.T) {
	s, c := startForFixtures(t)
	s.AddRepo(fixtureOrg, "create-file", Repo{})
	x := loadScenario(t, "create-file")[0]
	a := compareExchange(t, c, x, "", nil)
	rec := x.Response.(map[string]any)
	if m := missing(topKeys(rec["content"]), topKeys(a.obj()["content"])); len(m) > 0 {
		t.Errorf("content lacks %v", m)
	}
	if m := missing(topKeys(rec["commit"]), topKeys(a.obj()["commit"])); len(m) > 0 {
		t.Errorf("commit lacks %v", m)
	}
	if got, want := a.obj()["content"].(map[string]any)["sha"], rec["content"].(map[string]any)["sha"]; got != want {
		t.Errorf("blob sha %v, recorded %v", got, want)
	}
	noViolations(t, s)
}

func TestConformancePaginateIssues(t *testing.T) {
	s, c := startForFixtures(t)
	s.AddRepo(fixtureOrg, "paginate-issues", Repo{})
	for i := 1; i <= 13; i++ {
		c.do("POST", "/repos/"+fixtureOrg+"/paginate-issues/issues", map[string]any{"title": "Issue " + strconv.Itoa(i)}).want(t, 201)
	}
	id := strconv.FormatInt(s.repos[fixtureOrg+"/paginate-issues"].id, 10)
	for _, x := range loadScenario(t, "paginate-issues") {
		path := strings.Replace(x.Path, "/repositories/1000/", "/repositories/"+id+"/", 1)
		a := compareExchange(t, c, x, path, nil)
		want := strings.ReplaceAll(x.Headers["link"].(string), "https://api.github.com/repositories/1000/", s.URL()+"/repositories/"+id+"/")
		if got := a.header.Get("Link"); got != want {
			t.Errorf("%s: Link\n got %s\nwant %s", path, got, want)
		}
		var gotN, wantN []any
		for _, is := range a.list() {
			gotN = append(gotN, is.(map[string]any)["number"])
		}
		for _, is := range x.Response.([]any) {
			wantN = append(wantN, is.(map[string]any)["number"])
		}
		if len(gotN) != len(wantN) || gotN[0] != wantN[0] {
			t.Errorf("%s: numbers %v, recorded %v", path, gotN, wantN)
		}
	}
	noViolations(t, s)
}

func TestConformanceErrors(t *testing.T) {
	s, c := startForFixtures(t)
	s.AddRepo(fixtureOrg, "errors", Repo{})
	x := loadScenario(t, "errors")[0]
	a := compareExchange(t, c, x, "", nil)
	rec := x.Response.(map[string]any)
	if a.obj()["message"] != rec["message"] {
		t.Errorf("message %v, recorded %v", a.obj()["message"], rec["message"])
	}
	gotErrs, _ := json.Marshal(a.obj()["errors"])
	wantErrs, _ := json.Marshal(rec["errors"])
	if string(gotErrs) != string(wantErrs) {
		t.Errorf("errors %s, recorded %s", gotErrs, wantErrs)
	}
	noViolations(t, s)
}

func TestConformanceGitRefs(t *testing.T) {
	s, c := startForFixtures(t)
	s.AddRepo(fixtureOrg, "git-refs", Repo{Files: map[string]string{"README.md": "# git-refs"}})
	sha, _ := s.Branch(fixtureOrg, "git-refs", "main")
	// The scenario's POST: a branch at an existing commit (the recording's
	// sha is normalized, so the fake's own is sent).
	var post exchange
	for _, x := range loadScenario(t, "git-refs") {
		if x.Method == "post" {
			post = x
		}
	}
	a := compareExchange(t, c, post, "", map[string]any{"ref": "refs/heads/test", "sha": sha})
	if a.obj()["ref"] != "refs/heads/test" || a.obj()["object"].(map[string]any)["sha"] != sha {
		t.Errorf("ref: %v", a.obj())
	}
	// Made once; the second time GitHub says it exists.
	again := c.do("POST", post.Path, map[string]any{"ref": "refs/heads/test", "sha": sha}).want(t, 422).obj()
	if again["message"] != "Reference already exists" {
		t.Errorf("again: %v", again)
	}
	noViolations(t, s)
}
