package web

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/barrhawk/barrhawk/internal/tool/tooltest"
)

func TestHTTPRequest(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/json":
			w.Header().Set("Content-Type", "application/json; charset=utf-8")
			w.Header().Add("X-Multi", "a")
			w.Header().Add("X-Multi", "b")
			io.WriteString(w, `{"id":7,"tags":["x"]}`)
		case "/echo":
			b, _ := io.ReadAll(r.Body)
			w.Header().Set("Content-Type", "text/plain")
			io.WriteString(w, r.Method+" "+r.Header.Get("Content-Type")+" "+r.Header.Get("X-Token")+" "+string(b))
		case "/big":
			io.WriteString(w, strings.Repeat("z", 5000))
		case "/redirect":
			http.Redirect(w, r, "/json", http.StatusFound)
		case "/slow":
			time.Sleep(2 * time.Second)
		default:
			http.NotFound(w, r)
		}
	}))
	defer srv.Close()
	tools := Tools()

	got := tooltest.MustRunObject(t, tools, "http_request", `{"url":"`+srv.URL+`/json"}`)
	body := got["body"].(map[string]any)
	if got["status"] != 200.0 || got["ok"] != true || body["id"] != 7.0 || got["headers"].(map[string]any)["x-multi"] != "a, b" {
		t.Errorf("GET json: %v", got)
	}
	if tm := got["timing"].(map[string]any); tm["totalMs"].(float64) <= 0 || tm["ttfbMs"] == nil {
		t.Errorf("timing: %v", tm)
	}
	got = tooltest.MustRunObject(t, tools, "http_request", `{"url":"`+srv.URL+`/echo","method":"POST","headers":{"X-Token":"t1"},"body":{"a":1}}`)
	if got["body"] != `POST application/json t1 {"a":1}` {
		t.Errorf("POST a JSON body: %v", got["body"])
	}
	got = tooltest.MustRunObject(t, tools, "http_request", `{"url":"`+srv.URL+`/echo","method":"PUT","body":"plain text"}`)
	if got["body"] != "PUT   plain text" { // no content type, no token
		t.Errorf("PUT a string body: %q", got["body"])
	}
	got = tooltest.MustRunObject(t, tools, "http_request", `{"url":"`+srv.URL+`/big","maxBytes":100}`)
	if got["truncated"] != true || len(got["body"].(string)) != 100 || !strings.Contains(got["note"].(string), "maxBytes") {
		t.Errorf("a body past maxBytes: %v", got)
	}
	got = tooltest.MustRunObject(t, tools, "http_request", `{"url":"`+srv.URL+`/redirect"}`)
	if got["status"] != 200.0 || !strings.HasSuffix(got["url"].(string), "/json") {
		t.Errorf("a redirect followed: %v", got)
	}
	got = tooltest.MustRunObject(t, tools, "http_request", `{"url":"`+srv.URL+`/redirect","followRedirects":false}`)
	if got["status"] != 302.0 || got["ok"] != false {
		t.Errorf("a redirect not followed: %v", got)
	}
	got = tooltest.MustRunObject(t, tools, "http_request", `{"url":"`+srv.URL+`/missing"}`)
	if got["status"] != 404.0 || got["statusText"] != "Not Found" {
		t.Errorf("a 404 is an answer, not an error: %v", got)
	}
	tooltest.MustFailWith(t, tools, "http_request", `{"url":"`+srv.URL+`/slow","timeout":100}`, "TIMEOUT", "100ms")
	tooltest.MustFailWith(t, tools, "http_request", `{"url":"ftp://example.com/x"}`, "INVALID_ARGS", "http or https")
	tooltest.MustFailWith(t, tools, "http_request", `{"url":"http://127.0.0.1:1/"}`, "TOOL_ERROR", "refused")
	tooltest.MustFailWith(t, tools, "http_request", `{"url":"`+srv.URL+`","method":"BREW"}`, "INVALID_ARGS", "method")
}
