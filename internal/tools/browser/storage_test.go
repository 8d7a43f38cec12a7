package browser

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/barrhawk/barrhawk/internal/browser/browsertest"
	"github.com/barrhawk/barrhawk/internal/tool"
	"github.com/barrhawk/barrhawk/internal/tool/tooltest"
)

// loginSite is a site whose sign-in gives a cookie session (sid, HttpOnly)
// and a localStorage token: /account says "signed in" only with both.
type loginSite struct {
	*httptest.Server
	hits atomic.Int64 // requests received, but for the favicon
}

func newLoginSite(t *testing.T) *loginSite {
	s := &loginSite{}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/favicon.ico" { // asked for by the browser when it likes
			s.hits.Add(1)
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		switch r.URL.Path {
		case "/login":
			http.SetCookie(w, &http.Cookie{Name: "sid", Value: "s-" + r.URL.Query().Get("user"), Path: "/", HttpOnly: true})
			io.WriteString(w, `<!doctype html><title>Welcome</title><script>localStorage.setItem('token', 'tok-42');</script><p>Welcome</p>`)
		case "/account":
			user := "nobody"
			if c, err := r.Cookie("sid"); err == nil {
				user = strings.TrimPrefix(c.Value, "s-")
			}
			fmt.Fprintf(w, `<!doctype html><title>Account</title><p id="status"></p>
<script>const t = localStorage.getItem('token'); document.getElementById('status').textContent = %q !== 'nobody' && t ? 'signed in as ' + %q + ' (' + t + ')' : 'signed out (cookie %s, token ' + t + ')';</script>`, user, user, user)
		case "/echo":
			var names []string
			for _, c := range r.Cookies() {
				names = append(names, c.Name+"="+c.Value)
			}
			fmt.Fprintf(w, `<!doctype html><title>Echo</title><p id="sent">%s</p>`, strings.Join(names, "; "))
		default:
			io.WriteString(w, `<!doctype html><title>Plain</title><p>plain</p>`)
		}
	}))
	t.Cleanup(s.Close)
	return s
}

// eval runs browser_evaluate and returns its value.
func eval(t *testing.T, s *tooltest.Session, expr string) any {
	t.Helper()
	return obj(t, s, "browser_evaluate", `{"expression":`+jsq(expr)+`}`)["value"]
}

func TestCookieTools(t *testing.T) {
	site := newLoginSite(t)
	browsertest.OutputDir(t)
	s := tooltest.NewSession(t, Tools())

	// Without a page there is no host to default to.
	s.MustFailWith("browser_cookie_set", `{"name":"a","value":"1"}`, tool.CodeInvalidArgs, "about:blank", "domain")
	s.MustRun("browser_navigate", `{"url":"`+site.URL+`/plain"}`)

	// Set by the tool: the page and the server see it.
	got := obj(t, s, "browser_cookie_set", `{"name":"a","value":"1"}`)
	if c, _ := got["cookie"].(map[string]any); c["domain"] != "127.0.0.1" || c["path"] != "/" || c["expires"] != float64(-1) || c["sameSite"] != "Lax" {
		t.Errorf("cookie_set answered %v", got)
	}
	// Chromium caps an expiry at 400 days: a day ahead is kept as it is.
	expires := time.Now().Add(24 * time.Hour).Unix()
	s.MustRun("browser_cookie_set", fmt.Sprintf(`{"name":"hidden","value":"h","httpOnly":true,"expires":%d}`, expires))
	if v := eval(t, s, "document.cookie"); v != "a=1" {
		t.Errorf("document.cookie after cookie_set: %q (the httpOnly one must not show)", v)
	}
	s.MustRun("browser_navigate", `{"url":"`+site.URL+`/echo"}`)
	if got := obj(t, s, "browser_get_text", `{"selector":"#sent"}`); got["text"] != "a=1; hidden=h" && got["text"] != "hidden=h; a=1" {
		t.Errorf("the server received %v", got["text"])
	}

	// Set by the page: the tool reads it.
	eval(t, s, "document.cookie = 'b=2; path=/'")
	got = obj(t, s, "browser_cookie_get", `{"name":"b"}`)
	if c, _ := got["cookie"].(map[string]any); got["found"] != true || c["value"] != "2" {
		t.Errorf("cookie_get b: %v", got)
	}
	got = obj(t, s, "browser_cookie_get", `{"name":"hidden"}`)
	if c, _ := got["cookie"].(map[string]any); c["httpOnly"] != true || c["expires"] != float64(expires) {
		t.Errorf("cookie_get hidden: %v", got)
	}
	got = obj(t, s, "browser_cookie_get", `{"name":"zzz"}`)
	if got["found"] != false || got["cookie"] != nil || !strings.Contains(fmt.Sprint(got["note"]), "hidden") {
		t.Errorf("cookie_get of a missing cookie: %v", got)
	}
	if got = obj(t, s, "browser_cookie_list", `{"domain":"127.0.0.1"}`); got["count"] != float64(3) {
		t.Errorf("cookie_list: %v", got)
	}
	if got = obj(t, s, "browser_cookie_list", `{"domain":"example.com"}`); got["count"] != float64(0) {
		t.Errorf("cookie_list of another domain: %v", got)
	}

	// Delete: gone for the page and for the tool.
	if got = obj(t, s, "browser_cookie_delete", `{"name":"a"}`); got["deleted"] != float64(1) {
		t.Errorf("cookie_delete: %v", got)
	}
	if v := eval(t, s, "document.cookie"); v != "b=2" {
		t.Errorf("document.cookie after delete: %q", v)
	}
	if got = obj(t, s, "browser_cookie_get", `{"name":"a"}`); got["found"] != false {
		t.Errorf("cookie_get after delete: %v", got)
	}
	if got = obj(t, s, "browser_cookie_delete", `{"name":"a"}`); got["deleted"] != float64(0) || got["note"] == nil {
		t.Errorf("deleting a cookie that is not there: %v", got)
	}

	// Another session has its own cookies; clearing one leaves the other.
	s.MustRun("browser_session_new", `{"id":"other","url":"`+site.URL+`/plain"}`)
	if got = obj(t, s, "browser_cookie_list", `{}`); got["count"] != float64(0) {
		t.Errorf("a new session sees cookies: %v", got)
	}
	s.MustRun("browser_cookie_set", `{"name":"o","value":"x"}`)
	s.MustRun("browser_session_switch", `{"id":"default"}`)
	if got = obj(t, s, "browser_cookie_clear", `{}`); got["cleared"] != float64(2) {
		t.Errorf("cookie_clear: %v", got)
	}
	if got = obj(t, s, "browser_cookie_list", `{}`); got["count"] != float64(0) {
		t.Errorf("after clear: %v", got)
	}
	if v := eval(t, s, "document.cookie"); v != "" {
		t.Errorf("document.cookie after clear: %q", v)
	}
	s.MustRun("browser_session_switch", `{"id":"other"}`)
	if got = obj(t, s, "browser_cookie_list", `{}`); got["count"] != float64(1) {
		t.Errorf("clearing the default session cleared another: %v", got)
	}

	// Bad cookies.
	s.MustFailWith("browser_cookie_set", `{"name":"n","value":"v","sameSite":"None"}`, tool.CodeInvalidArgs, "secure")
	s.MustFailWith("browser_cookie_set", `{"name":"n","value":"v","url":"ftp://x/"}`, tool.CodeInvalidArgs, "url")
	s.MustFailWith("browser_cookie_set", `{"name":"n","value":"v","url":"http://a/","domain":"a"}`, tool.CodeInvalidArgs, "one of them")
}

func TestWebStorageTools(t *testing.T) {
	site := newLoginSite(t)
	browsertest.OutputDir(t)
	s := tooltest.NewSession(t, Tools())
	s.MustFailWith("browser_localstorage_list", `{}`, tool.CodeToolError, "about:blank", "no origin")
	s.MustRun("browser_navigate", `{"url":"`+site.URL+`/plain"}`)
	for _, area := range []string{"localStorage", "sessionStorage"} {
		short := strings.ToLower(area)
		// Set by the tool, read by the page.
		got := obj(t, s, "browser_"+short+"_set", `{"key":"k1","value":"{\"a\":1}"}`)
		if got["origin"] != site.URL {
			t.Errorf("%s set: %v", area, got)
		}
		if v := eval(t, s, area+".getItem('k1')"); v != `{"a":1}` {
			t.Errorf("%s: the page reads %v", area, v)
		}
		// Set by the page, read by the tool.
		eval(t, s, area+".setItem('k2', 'from page')")
		if got = obj(t, s, "browser_"+short+"_get", `{"key":"k2"}`); got["value"] != "from page" || got["found"] != true {
			t.Errorf("%s get: %v", area, got)
		}
		if got = obj(t, s, "browser_"+short+"_get", `{"key":"nope"}`); got["value"] != nil || got["found"] != false {
			t.Errorf("%s get of a missing key: %v", area, got)
		}
		if got = obj(t, s, "browser_"+short+"_list", `{}`); got["count"] != float64(2) || !strings.Contains(tooltest.Marshal(got), `{"name":"k2","value":"from page"}`) {
			t.Errorf("%s list: %v", area, got)
		}
		if got = obj(t, s, "browser_"+short+"_delete", `{"key":"k1"}`); got["deleted"] != true {
			t.Errorf("%s delete: %v", area, got)
		}
		if v := eval(t, s, area+".getItem('k1')"); v != nil {
			t.Errorf("%s: k1 is still there: %v", area, v)
		}
		if got = obj(t, s, "browser_"+short+"_clear", `{}`); got["cleared"] != float64(1) {
			t.Errorf("%s clear: %v", area, got)
		}
		if v := eval(t, s, area+".length"); v != float64(0) {
			t.Errorf("%s after clear: %v items", area, v)
		}
	}
	// The two areas are distinct.
	s.MustRun("browser_localstorage_set", `{"key":"only","value":"local"}`)
	if got := obj(t, s, "browser_sessionstorage_get", `{"key":"only"}`); got["found"] != false {
		t.Errorf("sessionStorage sees localStorage's item: %v", got)
	}
}

// stateRoots makes a temp dir the call's allowed root, as the front does.
func stateRoots(t *testing.T, s *tooltest.Session) string {
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	s.Ctx = tool.WithRoots(context.Background(), []string{dir})
	return dir
}

func TestStorageStateSignsInANewSession(t *testing.T) {
	site := newLoginSite(t)
	browsertest.OutputDir(t)
	s := tooltest.NewSession(t, Tools())
	dir := stateRoots(t, s)

	s.MustRun("browser_navigate", `{"url":"`+site.URL+`/login?user=ada"}`)
	s.MustRun("browser_navigate", `{"url":"`+site.URL+`/account"}`)
	if got := obj(t, s, "browser_get_text", `{"selector":"#status"}`); got["text"] != "signed in as ada (tok-42)" {
		t.Fatalf("the login did not hold: %v", got)
	}

	// Inline, the state is Playwright's shape.
	inline := obj(t, s, "browser_storage_state", `{}`)
	want := fmt.Sprintf(`{"cookies":[{"name":"sid","value":"s-ada","domain":"127.0.0.1","path":"/","expires":-1,"httpOnly":true,"secure":false,"sameSite":"Lax"}],"origins":[{"origin":%q,"localStorage":[{"name":"token","value":"tok-42"}]}]}`, site.URL)
	tooltest.WantJSON(t, "storage state", inline, want)

	got := obj(t, s, "browser_storage_state", `{"filename":"auth/ada.json"}`)
	if got["path"] != filepath.Join(dir, "auth/ada.json") || got["cookies"] != float64(1) {
		t.Errorf("storage_state to a file: %v", got)
	}
	data, err := os.ReadFile(filepath.Join(dir, "auth/ada.json"))
	if err != nil {
		t.Fatal(err)
	}
	var file any
	if err := json.Unmarshal(data, &file); err != nil {
		t.Fatalf("the file is not JSON: %v", err)
	}
	tooltest.WantJSON(t, "the file", file, want)

	// A new session is signed out; the state signs it in, without a
	// request to the site.
	s.MustRun("browser_session_new", `{"id":"fresh","url":"`+site.URL+`/account"}`)
	if got := obj(t, s, "browser_get_text", `{"selector":"#status"}`); got["text"] != "signed out (cookie nobody, token null)" {
		t.Fatalf("a new session is not signed out: %v", got)
	}
	before := site.hits.Load()
	got = obj(t, s, "browser_set_storage_state", `{"filename":"auth/ada.json"}`)
	if got["cookies"] != float64(1) || tooltest.Marshal(got["origins"]) != `["`+site.URL+`"]` {
		t.Errorf("set_storage_state: %v", got)
	}
	if n := site.hits.Load() - before; n != 0 {
		t.Errorf("loading the state sent %d requests to the site", n)
	}
	s.MustRun("browser_navigate", `{"url":"`+site.URL+`/account"}`)
	if got := obj(t, s, "browser_get_text", `{"selector":"#status"}`); got["text"] != "signed in as ada (tok-42)" {
		t.Errorf("the state did not sign the new session in: %v", got)
	}
	// The default session kept its own state.
	list := tooltest.Marshal(s.MustRun("browser_session_list", `{}`))
	if !strings.Contains(list, `"name":"fresh"`) {
		t.Errorf("sessions: %s", list)
	}

	// Bad input.
	s.MustFailWith("browser_storage_state", `{"filename":"../out.json"}`, tool.CodeForbidden, "outside the allowed roots")
	s.MustFailWith("browser_set_storage_state", `{"filename":"/etc/hostname"}`, tool.CodeForbidden, "outside the allowed roots")
	s.MustFail("browser_set_storage_state", `{"filename":"auth/missing.json"}`, tool.CodeNotFound)
	for name, c := range map[string]struct{ body, mention string }{
		"nojson.json":   {`{"cookies": [`, "not JSON"},
		"array.json":    {`[1, 2]`, "an array, not an object"},
		"nodomain.json": {`{"cookies":[{"name":"a","value":"b","path":"/"}],"origins":[]}`, "cookies[0]: domain: missing"},
		"badsite.json":  {`{"cookies":[{"name":"a","value":"b","domain":"x","path":"/","sameSite":"lax"}]}`, `cookies[0]: sameSite "lax"`},
		"origin.json":   {`{"cookies":[],"origins":[{"origin":"about:blank","localStorage":[]}]}`, "origins[0]: origin \"about:blank\""},
		"items.json":    {`{"origins":[{"origin":"http://a.test","localStorage":[{"name":"k","value":3}]}]}`, "origins[0]: localStorage[0]"},
		"other.json":    {`{"user":"ada"}`, `neither "cookies" nor "origins"`},
	} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(c.body), 0o644); err != nil {
			t.Fatal(err)
		}
		s.MustFailWith("browser_set_storage_state", `{"filename":"`+name+`"}`, tool.CodeInvalidArgs, name, c.mention)
	}
}

// A storage state Playwright itself wrote signs a session in: the
// playwright-core npm package (installed by the repository's tool
// caches) drives Debian's chromium through the login and saves it.
func TestPlaywrightStorageStateSignsIn(t *testing.T) {
	core := playwrightCore(t)
	site := newLoginSite(t)
	browsertest.OutputDir(t)
	s := tooltest.NewSession(t, Tools())
	dir := stateRoots(t, s)
	path := filepath.Join(dir, "pw.json")
	script := fmt.Sprintf(`const { chromium } = require(%q);
(async () => {
  const b = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--no-sandbox'] });
  const c = await b.newContext();
  const p = await c.newPage();
  await p.goto(%q);
  await p.goto(%q);
  await c.storageState({ path: %q });
  await b.close();
})().catch((e) => { console.error(e); process.exit(1); });`, core, site.URL+"/login?user=grace", site.URL+"/account", path)
	cmd := exec.Command("node", "-e", script)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("playwright: %v\n%s", err, out)
	}
	data, _ := os.ReadFile(path)
	if !strings.Contains(string(data), `"tok-42"`) {
		t.Fatalf("Playwright's state lacks the token: %s", data)
	}
	// browser_session_new {storageState} starts the session signed in.
	s.MustRun("browser_session_new", `{"id":"pw","storageState":"pw.json","url":"`+site.URL+`/account"}`)
	if got := obj(t, s, "browser_get_text", `{"selector":"#status"}`); got["text"] != "signed in as grace (tok-42)" {
		t.Errorf("Playwright's state did not sign the new session in: %v\n%s", got, data)
	}
	// So does browser_set_storage_state, in a session signed out.
	s.MustRun("browser_session_new", `{"id":"later"}`)
	s.MustRun("browser_set_storage_state", `{"filename":"pw.json"}`)
	s.MustRun("browser_navigate", `{"url":"`+site.URL+`/account"}`)
	if got := obj(t, s, "browser_get_text", `{"selector":"#status"}`); got["text"] != "signed in as grace (tok-42)" {
		t.Errorf("Playwright's state did not sign in: %v\n%s", got, data)
	}
	// A state file that is not there opens no session.
	s.MustFail("browser_session_new", `{"id":"nofile","storageState":"missing.json"}`, tool.CodeNotFound)
	if list := tooltest.Marshal(s.MustRun("browser_session_list", `{}`)); strings.Contains(list, "nofile") {
		t.Errorf("a session was opened with a missing state file: %s", list)
	}
}

// playwrightCore is the playwright-core package of the repository's
// tool caches (scripts/test installs it).
func playwrightCore(t *testing.T) string {
	t.Helper()
	if _, err := exec.LookPath("node"); err != nil {
		t.Fatal("node is not installed: run scripts/test, which installs it (apt-get install nodejs)")
	}
	if _, err := os.Stat("/usr/bin/chromium"); err != nil {
		t.Fatal("Debian's chromium is not installed: run scripts/test, which installs it (apt-get install chromium)")
	}
	// @playwright/test's, which scripts/test installs into .cache/test-runners.
	dir, err := filepath.Abs("../../../.cache/test-runners/node_modules/playwright-core")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "package.json")); err != nil {
		t.Fatalf("no playwright-core in .cache/test-runners: run scripts/test, which installs @playwright/test there from the npm registry: %v", err)
	}
	return dir
}
