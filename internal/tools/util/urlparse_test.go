package util

import (
	"testing"

	"github.com/barrhawk/barrhawk/internal/tool/tooltest"
)

func TestURLParse(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ url, want string }{
		{"https://user:p%40ss@example.com:8080/a/b?x=1&x=2&y=hello%20world&z=#section-2", `{
			"href":"https://user:p%40ss@example.com:8080/a/b?x=1&x=2&y=hello%20world&z=#section-2",
			"protocol":"https:","scheme":"https","host":"example.com:8080","hostname":"example.com","hostType":"name",
			"port":"8080","portIsExplicit":true,"pathname":"/a/b","search":"?x=1&x=2&y=hello%20world&z=",
			"query":{"x":["1","2"],"y":"hello world","z":""},"hash":"#section-2",
			"username":"user","password":"p@ss","origin":"https://example.com:8080","isAbsolute":true}`},
		// Default port filled in, empty path shown as "/", no query.
		{"http://example.com", `{"href":"http://example.com","protocol":"http:","scheme":"http","host":"example.com",
			"hostname":"example.com","hostType":"name","port":"80","portIsExplicit":false,"pathname":"/","search":"","query":{},
			"hash":"","username":"","password":"","origin":"http://example.com","isAbsolute":true}`},
		// An explicit default port is reported but left out of the origin.
		{"https://example.com:443/", `{"href":"https://example.com:443/","protocol":"https:","scheme":"https","host":"example.com:443",
			"hostname":"example.com","hostType":"name","port":"443","portIsExplicit":true,"pathname":"/","search":"","query":{},
			"hash":"","username":"","password":"","origin":"https://example.com","isAbsolute":true}`},
		// IPv6 literal: hostname keeps its brackets, as in the WHATWG API.
		{"http://[2001:db8::1]:3000/api", `{"href":"http://[2001:db8::1]:3000/api","protocol":"http:","scheme":"http",
			"host":"[2001:db8::1]:3000","hostname":"[2001:db8::1]","hostType":"ipv6","port":"3000","portIsExplicit":true,
			"pathname":"/api","search":"","query":{},"hash":"","username":"","password":"",
			"origin":"http://[2001:db8::1]:3000","isAbsolute":true}`},
		{"ws://127.0.0.1/socket", `{"href":"ws://127.0.0.1/socket","protocol":"ws:","scheme":"ws","host":"127.0.0.1",
			"hostname":"127.0.0.1","hostType":"ipv4","port":"80","portIsExplicit":false,"pathname":"/socket","search":"","query":{},
			"hash":"","username":"","password":"","origin":"ws://127.0.0.1","isAbsolute":true}`},
		// Unicode host, path and query.
		{"https://münchen.de/straße?q=ü#über", `{"href":"https://m%C3%BCnchen.de/stra%C3%9Fe?q=ü#%C3%BCber",
			"protocol":"https:","scheme":"https","host":"münchen.de","hostname":"münchen.de","hostType":"name",
			"port":"443","portIsExplicit":false,"pathname":"/stra%C3%9Fe","search":"?q=ü","query":{"q":"ü"},"hash":"#%C3%BCber",
			"username":"","password":"","origin":"https://münchen.de","isAbsolute":true}`},
		// Non-special scheme: no default port, origin "null", opaque path.
		{"mailto:qa@example.com", `{"href":"mailto:qa@example.com","protocol":"mailto:","scheme":"mailto","host":"",
			"hostname":"","hostType":"","port":"","portIsExplicit":false,"pathname":"qa@example.com","search":"","query":{},
			"hash":"","username":"","password":"","origin":"null","isAbsolute":true}`},
		// Relative reference.
		{"  /search?q=go&page=2  ", `{"href":"/search?q=go&page=2","protocol":"","scheme":"","host":"","hostname":"",
			"hostType":"","port":"","portIsExplicit":false,"pathname":"/search","search":"?q=go&page=2",
			"query":{"q":"go","page":"2"},"hash":"","username":"","password":"","origin":"null","isAbsolute":false}`},
	} {
		tooltest.WantJSON(t, "url_parse "+tc.url, run(t, "url_parse", tooltest.Marshal(map[string]string{"url": tc.url})), tc.want)
	}
}

func TestURLParseDefaultPorts(t *testing.T) {
	t.Parallel()
	for url, want := range map[string]string{
		"http://h/": "80", "https://h/": "443", "ws://h/": "80", "wss://h/": "443", "ftp://h/": "21",
		"ssh://h/": "", "postgres://h:5432/db": "5432", "HTTPS://h/": "443",
	} {
		if got := run(t, "url_parse", tooltest.Marshal(map[string]string{"url": url}))["port"]; got != want {
			t.Errorf("url_parse(%s) port = %v, want %q", url, got, want)
		}
	}
}

func TestURLParseBadInput(t *testing.T) {
	t.Parallel()
	checkBad(t, []badInput{
		{"url_parse", `{"url":"http://[::1"}`, []string{`"url"`, "missing ']'"}},
		{"url_parse", `{"url":"http://exa mple.com/"}`, []string{`"url"`, "invalid character"}},
		{"url_parse", `{"url":"://no-scheme"}`, []string{`"url"`, "missing protocol scheme"}},
		{"url_parse", `{"url":"http://h/%zz"}`, []string{`"url"`, "invalid URL escape"}},
		{"url_parse", `{"url":"   "}`, []string{`"url"`, "empty"}},
		{"url_parse", `{"url":""}`, []string{`"url"`, "at least 1"}},
		{"url_parse", `{}`, []string{`"url"`, "required"}},
		{"url_parse", `{"url":42}`, []string{`"url"`, "expected string"}},
	})
}
