package browser

import (
	"strings"
	"testing"

	"github.com/barrhawk/barrhawk/internal/tool"
)

// The globs match as Playwright's urlMatch does (its glob tests, 1.64).
func TestGlobRegexp(t *testing.T) {
	for _, c := range []struct {
		glob, url string
		want      bool
	}{
		{"**/api/*", "http://h/api/users", true},
		{"**/api/*", "http://h/api/users/1", false}, // * stays in a segment
		{"**/api/**", "http://h/api/users/1", true},
		{"**/*.{png,jpg}", "https://h/a/b/c.jpg", true},
		{"**/*.{png,jpg}", "https://h/a/b/c.gif", false},
		{"**/*.js", "https://localhost:8080/foo.js", true},
		{"**/*.js", "https://localhost:8080/foo.js?x=1", false}, // the whole URL
		{"**/*.js*", "https://localhost:8080/foo.js?x=1", true},
		{"http://localhost:8080/?x=1", "http://localhost:8080/?x=1", true}, // ? is literal
		{"http://localhost:8080/?x=1", "http://localhost:8080/ax=1", false},
		{"**/foo/**/bar", "https://h/foo/bar", true}, // **/ may stand for nothing
		{"**/foo/**/bar", "https://h/foo/a/b/bar", true},
		{"https://h/\\*star", "https://h/*star", true},
		{"https://h/\\*star", "https://h/xstar", false},
		{"**/a,b", "https://h/a,b", true},
		{"https://h/\\**", "https://h/*abc", true},
		{"**/{a,b}*{c,d}", "https://h/ac", true},
		{"**/{a\\,b,c}", "https://h/a,b", true},
	} {
		re, err := GlobRegexp(c.glob)
		if err != nil {
			t.Errorf("%q: %v", c.glob, err)
			continue
		}
		if got := re.MatchString(c.url); got != c.want {
			t.Errorf("%q on %q = %v, want %v (regexp %s)", c.glob, c.url, got, c.want, re)
		}
		// The Fetch pattern is a wider net: it never misses a URL the glob takes.
		if c.want && !fetchWildcard(fetchPattern(c.glob), c.url) {
			t.Errorf("fetch pattern %q of %q misses %q", fetchPattern(c.glob), c.glob, c.url)
		}
	}
	for _, bad := range []string{"**/{a,{b}}", "**/a}", "**/{a"} {
		if _, err := GlobRegexp(bad); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}

// fetchWildcard matches as the Fetch domain does: * any run, ? one
// character, \ escapes.
func fetchWildcard(pat, s string) bool {
	if pat == "" {
		return s == ""
	}
	switch {
	case pat[0] == '*':
		for i := 0; i <= len(s); i++ {
			if fetchWildcard(pat[1:], s[i:]) {
				return true
			}
		}
		return false
	case pat[0] == '\\' && len(pat) > 1:
		return s != "" && s[0] == pat[1] && fetchWildcard(pat[2:], s[1:])
	case pat[0] == '?':
		return s != "" && fetchWildcard(pat[1:], s[1:])
	}
	return s != "" && s[0] == pat[0] && fetchWildcard(pat[1:], s[1:])
}

func TestRouteSpecs(t *testing.T) {
	st := int64(99)
	if _, err := newRoute(RouteSpec{Pattern: "**/x", Status: &st}); !isCode(err, tool.CodeInvalidArgs) || !strings.Contains(err.Error(), "100 to 599") {
		t.Errorf("status 99: %v", err)
	}
	body := "hi"
	r, err := newRoute(RouteSpec{Pattern: "**/x", Body: &body, ContentType: "application/json", Headers: []Header{{"Content-Type", "text/plain"}, {"X-A", "1"}}})
	if err != nil || r.status != 200 || !r.fulfill {
		t.Fatalf("route: %+v %v", r, err)
	}
	var types []string
	for _, h := range r.headers {
		if strings.EqualFold(h.Name, "content-type") {
			types = append(types, h.Value)
		}
	}
	if len(types) != 1 || types[0] != "application/json" {
		t.Errorf("contentType wins over a Content-Type header: %v", types)
	}
}

func isCode(err error, code string) bool {
	te, ok := err.(*tool.Error)
	return ok && te.Code == code
}

// The vendored list is Playwright's, read whole; a near miss names the
// closest devices.
func TestDevices(t *testing.T) {
	if n := len(DeviceNames()); n < 100 {
		t.Errorf("%d devices", n)
	}
	d, err := LookupDevice("iPhone 13")
	if err != nil || d.Viewport != (Size{390, 664}) || d.DeviceScaleFactor != 3 || !d.IsMobile || !d.HasTouch || !strings.Contains(d.UserAgent, "iPhone") {
		t.Errorf("iPhone 13: %+v %v", d, err)
	}
	_, err = LookupDevice("iphone 13")
	if !isCode(err, tool.CodeInvalidArgs) || !strings.Contains(err.Error(), `"iPhone 13"`) {
		t.Errorf("near miss: %v", err)
	}
}
