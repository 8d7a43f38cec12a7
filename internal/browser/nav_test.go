package browser

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/barrhawk/barrhawk/internal/tool"
)

// navServer serves a page whose link and form lead to /second, which
// answers 300 ms late and sends its body 300 ms after its head (so there
// is a moment when the new document is there, empty); a link to a 204,
// one to an anchor, and one to a server that never answers.
func navServer(t *testing.T) *httptest.Server {
	stop := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		switch r.URL.Path {
		case "/":
			io.WriteString(w, `<!doctype html><title>First</title><h1>First page</h1>
<a id="go" href="/second">Go</a><form action="/second"><input name="q" value="x"><button id="send">Send</button></form>
<a id="none" href="/nocontent">Nothing</a><a id="anchor" href="#end">End</a><a id="stuck" href="/stuck">Stuck</a><p id="end">End</p>`)
		case "/second":
			time.Sleep(300 * time.Millisecond)
			io.WriteString(w, `<!doctype html><html><head><title>Second</title></head>`)
			w.(http.Flusher).Flush()
			time.Sleep(300 * time.Millisecond)
			io.WriteString(w, `<body><h1>Second page</h1></body></html>`)
		case "/nocontent":
			w.WriteHeader(http.StatusNoContent)
		case "/stuck":
			select {
			case <-stop:
			case <-r.Context().Done():
			}
		}
	}))
	t.Cleanup(srv.Close)
	t.Cleanup(func() { close(stop) })
	return srv
}

// A read right after an action that made the page navigate (a link, a
// form submitted) waits for the new document, instead of reading the old
// one or the empty one between them; an action that navigates nowhere
// (a 204, an anchor) makes no read wait; a page that never comes is a
// TIMEOUT naming it, and browser_navigate leaves it at once.
func TestReadAfterNavigatingAction(t *testing.T) {
	ctx, p := launched(t, 60*time.Second)
	srv := navServer(t)
	for _, c := range []struct{ click, read, want string }{
		{"#go", "", "Second page"},
		{"#send", "", "Second page"},
		{"#go", "h1", "Second page"},
		{"#send", "h1", "Second page"},
	} {
		if _, err := p.Navigate(ctx, srv.URL+"/"); err != nil {
			t.Fatal(err)
		}
		if _, err := p.Click(ctx, c.click, ClickOptions{}); err != nil {
			t.Fatal(err)
		}
		if s, err := p.Text(ctx, c.read, FindOptions{}); err != nil || s != c.want {
			t.Errorf("text of %q right after a click on %s: %q %v, want %q", c.read, c.click, s, err, c.want)
		}
	}
	if _, err := p.Navigate(ctx, srv.URL+"/"); err != nil {
		t.Fatal(err)
	}
	for _, sel := range []string{"#none", "#anchor"} {
		if _, err := p.Click(ctx, sel, ClickOptions{}); err != nil {
			t.Fatal(err)
		}
		t0 := time.Now()
		if s, err := p.Text(ctx, "h1", FindOptions{}); err != nil || s != "First page" || time.Since(t0) > time.Second {
			t.Errorf("text after a click on %s, which navigates nowhere: %q %v after %v", sel, s, err, time.Since(t0))
		}
	}
	if _, err := p.Click(ctx, "#stuck", ClickOptions{}); err != nil {
		t.Fatal(err)
	}
	cctx, ccancel := context.WithTimeout(ctx, 2500*time.Millisecond)
	_, err := p.Text(cctx, "h1", FindOptions{})
	ccancel()
	if code(err) != tool.CodeTimeout || !strings.Contains(err.Error(), "still opening "+srv.URL+"/stuck") {
		t.Errorf("a read while the page opens a server that never answers: %v", err)
	}
	t0 := time.Now()
	if _, err := p.Navigate(ctx, srv.URL+"/"); err != nil || time.Since(t0) > 2*time.Second {
		t.Fatalf("navigate away from a page that never came: %v after %v", err, time.Since(t0))
	}
	if s, err := p.Text(ctx, "h1", FindOptions{}); err != nil || s != "First page" {
		t.Errorf("after navigating away: %q %v", s, err)
	}
}

// launched starts a headless browser for a test, closed when the test
// ends, and returns a context lasting d and the browser's active tab.
func launched(t *testing.T, d time.Duration) (context.Context, *Page) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	b, err := Launch(ctx, Options{Headless: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Close() })
	p, err := b.Active()
	if err != nil {
		t.Fatal(err)
	}
	return ctx, p
}
