package browser

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/barrhawk/barrhawk/internal/tool"
	"github.com/barrhawk/barrhawk/internal/tool/tooltest"
)

// lateServer serves /late, whose #late comes 6 s after a click on
// #start (later than the default timeout, 5 s), and /form, whose form
// leads to /second, a page that answers 300 ms late and sends its body
// 300 ms after its head.
func lateServer(t *testing.T) *httptest.Server {
	return lateServerGated(t, nil)
}

// lateServerGated is lateServer whose /second starts to answer only once
// gate gives it a value (at once with a nil gate).
func lateServerGated(t *testing.T, gate <-chan struct{}) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		switch r.URL.Path {
		case "/late":
			io.WriteString(w, `<!doctype html><title>Late</title><button id="start" onclick="setTimeout(() => document.body.insertAdjacentHTML('beforeend', '<p id=late>Here at last</p>'), 6000)">Start</button>`)
		case "/form":
			io.WriteString(w, `<!doctype html><title>Form</title><h1>Search</h1><form action="/second"><input name="q" value="owls"><button id="send">Search</button></form><a id="go" href="/second?q=link">Go</a>`)
		case "/second":
			if gate != nil {
				select {
				case <-gate:
				case <-r.Context().Done():
					return
				}
			}
			time.Sleep(300 * time.Millisecond)
			fmt.Fprintf(w, `<!doctype html><html><head><title>Results</title></head>`)
			w.(http.Flusher).Flush()
			time.Sleep(300 * time.Millisecond)
			fmt.Fprintf(w, `<body><h1>Results for %s</h1></body></html>`, r.URL.Query().Get("q"))
		}
	}))
	t.Cleanup(srv.Close)
	return srv
}

// A timeout of 0 is not the default: an element wait lasts as long as the
// call may (an element coming after 6 s is found, where the default
// gives up after 5 s), and browser_wait without a selector waits until a
// moment before the call ends. Each case runs on a browser of its own.
func TestTimeoutZeroWaitsAsLongAsTheCall(t *testing.T) {
	t.Parallel()
	srv := lateServer(t)
	session := func(t *testing.T, call time.Duration) *tooltest.Session {
		t.Parallel()
		s := tooltest.NewSession(t, Tools())
		ctx, cancel := context.WithTimeout(context.Background(), call)
		t.Cleanup(cancel)
		s.Ctx = ctx
		s.MustRun("browser_navigate", `{"url":"`+srv.URL+`/late"}`)
		s.MustRun("browser_click", `{"selector":"#start"}`)
		return s
	}
	t.Run("zero, never", func(t *testing.T) {
		s := session(t, 30*time.Second)
		// The call of 3 s is the get_text alone: a loaded machine may take
		// that long to start the browser.
		ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
		defer cancel()
		s.Ctx = ctx
		e := s.MustFail("browser_get_text", `{"selector":"#never","timeout":0}`, tool.CodeElementNotFound)
		if !strings.Contains(e.Message, "timeout 0 waits until a moment before the call's own timeout") {
			t.Errorf("get_text {timeout: 0} of an element that never comes: %s", e.Message)
		}
	})
	t.Run("zero", func(t *testing.T) {
		s := session(t, 30*time.Second)
		if got := obj(t, s, "browser_get_text", `{"selector":"#late","timeout":0}`); got["text"] != "Here at last" {
			t.Errorf("get_text {timeout: 0} of an element coming after 6 s: %v", got)
		}
		s.MustFail("browser_get_text", `{"selector":"#late","timeout":1.5}`, tool.CodeInvalidArgs)
	})
	t.Run("absent", func(t *testing.T) {
		s := session(t, 30*time.Second)
		t0 := time.Now()
		e := s.MustFail("browser_get_text", `{"selector":"#late"}`, tool.CodeElementNotFound)
		// At least the default, and not the call's 30 s (a loaded machine
		// adds to the 5 s; the message says which wait it was).
		if waited := time.Since(t0); waited < 4500*time.Millisecond || waited > 10*time.Second || !strings.Contains(e.Message, "within 5s") {
			t.Errorf("get_text without a timeout gave up after %v (want the default, 5 s): %s", waited, e.Message)
		}
	})
	t.Run("sleep", func(t *testing.T) {
		s := session(t, 30*time.Second)
		ctx, cancel := context.WithTimeout(context.Background(), 7500*time.Millisecond)
		defer cancel()
		s.Ctx = ctx
		got := obj(t, s, "browser_wait", `{"timeout":0}`)
		// Until a moment before the call ends: past the default, never
		// past the call.
		if ms := got["waitedMs"].(float64); ms < 5500 || ms >= 7500 {
			t.Errorf("browser_wait {timeout: 0} in a call of 7.5 s waited %v ms, want about 6400 and under 7500", ms)
		}
	})
}

// browser_get_text right after a browser_click that made the page navigate
// (a form submitted, a link followed) to a slow page reads the new page,
// not the old one nor the empty document the new one starts as; the click
// answers without waiting for that page (held until the click has
// answered), saying where the page goes.
func TestGetTextAfterNavigatingClick(t *testing.T) {
	t.Parallel()
	gate := make(chan struct{}, 1)
	srv := lateServerGated(t, gate)
	s := tooltest.NewSession(t, Tools())
	for _, c := range []struct{ click, selector, want string }{
		{"#send", "", "Results for owls"},
		{"#go", "", "Results for link"},
		{"#send", "h1", "Results for owls"},
		{"#go", "h1", "Results for link"},
	} {
		s.MustRun("browser_navigate", `{"url":"`+srv.URL+`/form"}`)
		t0 := time.Now()
		got := obj(t, s, "browser_click", `{"selector":"`+c.click+`"}`)
		took := time.Since(t0)
		gate <- struct{}{} // the page it goes to answers only now
		// The page is held until the click has answered: a click that
		// waited for it would answer only at a timeout of its own (seconds),
		// so this bound tells the two apart; it is not a measure of speed.
		if !strings.Contains(fmt.Sprint(got["url"]), "/second?q=") || took > 2*time.Second {
			t.Errorf("a click on %s that navigates: %v after %v (want the page it goes to, without waiting for it)", c.click, got, took)
		}
		if got := obj(t, s, "browser_get_text", `{"selector":"`+c.selector+`"}`); got["text"] != c.want {
			t.Errorf("get_text %q right after a click on %s: %v, want %q", c.selector, c.click, got["text"], c.want)
		}
	}
}
