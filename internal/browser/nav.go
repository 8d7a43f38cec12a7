package browser

import (
	"context"
	"errors"
	"net/url"
	"regexp"
	"strings"
	"time"

	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"

	"github.com/barrhawk/barrhawk/internal/tool"
)

// schemes are the URL schemes a tab opens.
var schemes = map[string]bool{"http": true, "https": true, "file": true, "data": true, "about": true, "blob": true, "view-source": true, "chrome": true}

// checkURL refuses an address a browser cannot open, saying what would be
// right: "localhost:3000" and "example.com/x" lack their scheme.
func checkURL(raw string) error {
	s := strings.TrimSpace(raw)
	if s == "" {
		return tool.Errorf(tool.CodeInvalidArgs, "argument \"url\": empty; give an absolute URL such as http://localhost:3000/ or https://example.com/")
	}
	u, err := url.Parse(s)
	if err != nil {
		return tool.Errorf(tool.CodeInvalidArgs, "argument \"url\": %q is not a URL (%v); give an absolute URL such as http://localhost:3000/", raw, err)
	}
	// host:port parses as a scheme with a number after it; any other
	// scheme (ftp://, javascript:, mailto:) is one a tab does not open.
	hostPort := u.Opaque != "" && u.Opaque[0] >= '0' && u.Opaque[0] <= '9'
	if u.Scheme != "" && !hostPort && !schemes[strings.ToLower(u.Scheme)] {
		return tool.Errorf(tool.CodeInvalidArgs, "argument \"url\": %q: a browser tab does not open %s: URLs; give an http, https, file, data or about URL", raw, u.Scheme)
	}
	if u.Scheme == "" || !schemes[strings.ToLower(u.Scheme)] {
		hint := ""
		if !strings.ContainsAny(s, " \t") {
			hint = "; did you mean \"http://" + strings.TrimPrefix(s, "//") + "\"?"
		}
		return tool.Errorf(tool.CodeInvalidArgs, "argument \"url\": %q is not an absolute URL a browser opens (http, https, file, data, about)%s", raw, hint)
	}
	return nil
}

// netError finds Chromium's net::ERR_... code in a navigation's error.
var netError = regexp.MustCompile(`net::ERR_[A-Z_]+`)

// navError explains a navigation that failed: what went wrong, in words,
// and what to check.
func navError(u string, err error) error {
	var te *tool.Error
	if errors.As(err, &te) {
		return te
	}
	if errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled) {
		return err
	}
	host := u
	if pu, perr := url.Parse(u); perr == nil && pu.Host != "" {
		host = pu.Host
	}
	code := netError.FindString(err.Error())
	var why string
	switch {
	case code == "net::ERR_CONNECTION_REFUSED":
		why = "nothing listens at " + host + ": is the server running, and is the port right?"
	case code == "net::ERR_NAME_NOT_RESOLVED":
		why = "the host name of " + host + " does not resolve: check its spelling, or use an IP address"
	case code == "net::ERR_UNSAFE_PORT":
		why = "Chromium refuses to connect to the port of " + host + " (a port it deems unsafe, as 1, 25 or 6000): serve on another port, such as 8080"
	case code == "net::ERR_CONNECTION_TIMED_OUT" || code == "net::ERR_TIMED_OUT":
		why = host + " did not answer in time: is it reachable from this machine?"
	case code == "net::ERR_ADDRESS_UNREACHABLE" || code == "net::ERR_INTERNET_DISCONNECTED":
		why = host + " cannot be reached from this machine (no route or no network)"
	case code == "net::ERR_FILE_NOT_FOUND":
		why = "no such file: give the absolute path of an existing file (file:///path/to/page.html)"
	case strings.HasPrefix(code, "net::ERR_CERT_"):
		why = "the TLS certificate of " + host + " is not trusted"
	case code == "net::ERR_ABORTED":
		why = "the navigation was cancelled: the address answered with no page to show (a download, or a 204), or another navigation replaced it"
	case code == "net::ERR_CONNECTION_RESET" || code == "net::ERR_EMPTY_RESPONSE" || code == "net::ERR_CONNECTION_CLOSED":
		why = host + " closed the connection without an answer: is it an HTTP server (not HTTPS, or another protocol)?"
	case strings.Contains(err.Error(), "invalid URL"):
		return tool.Errorf(tool.CodeInvalidArgs, "argument \"url\": Chromium cannot open %q (an invalid URL); give an absolute URL such as http://localhost:3000/", u)
	}
	if why != "" {
		return tool.Errorf(tool.CodeToolError, "could not open %s (%s): %s", u, code, why)
	}
	return tool.Errorf(tool.CodeToolError, "could not open %s: %v", u, err)
}

// pendingNav is a navigation the page itself started in its tab (a link
// followed, a form submitted, location.href set), from the moment the page
// asked for it until its new document is parsed.
type pendingNav struct {
	url   string
	since time.Time
	// loading says the browser began it (frameStartedLoading): only then
	// does its frameStoppedLoading end it. One that never begins (the
	// page's beforeunload said no) is dropped after navStartGrace.
	loading bool
	// done is closed when it ends.
	done chan struct{}
}

// navStartGrace is how long a navigation the page asked for may take to
// begin loading before it is taken as cancelled. It begins within
// milliseconds.
const navStartGrace = 2 * time.Second

// trackNav follows the navigations the page starts in its main frame, from
// the tab's events (called by record, under p.mu). Chromium's own order
// for one is: frameRequestedNavigation, frameStartedLoading, frameNavigated
// (the new document replaces the old one, empty), domContentEventFired
// (it is parsed), frameStoppedLoading; a navigation that brings no
// document (a download, a 204) goes from frameStartedLoading to
// frameStoppedLoading. Navigations within the document (#anchors,
// history.pushState) and links opening another tab are none of these.
func (p *Page) trackNav(ev any, now time.Time) {
	switch e := ev.(type) {
	case *page.EventFrameRequestedNavigation:
		if e.FrameID != p.frame || e.Disposition != page.ClientNavigationDispositionCurrentTab {
			return
		}
		if p.nav == nil {
			p.nav = &pendingNav{done: make(chan struct{})}
		}
		p.nav.url, p.nav.since, p.nav.loading = e.URL, now, false
		close(p.navAsked)
		p.navAsked = make(chan struct{})
	case *page.EventFrameStartedLoading:
		if e.FrameID == p.frame && p.nav != nil {
			p.nav.loading = true
		}
	case *page.EventDomContentEventFired:
		p.navEnded()
	case *page.EventFrameStoppedLoading:
		// A stop before the start is the end of the load before.
		if e.FrameID == p.frame && p.nav != nil && p.nav.loading {
			p.navEnded()
		}
	}
}

// navEnded ends the pending navigation, if any (under p.mu).
func (p *Page) navEnded() {
	if p.nav != nil {
		close(p.nav.done)
		p.nav = nil
	}
}

// settle waits, after an action that made the page navigate (a link, a
// form submitted), until the new document is parsed (its DOMContentLoaded)
// or the navigation ends without one, so that what comes next reads or
// acts on the new page, not on the old one nor on the empty document
// between them, as Playwright's auto-wait does. It waits up to bound, and
// answers TIMEOUT saying which page is still loading past it; it returns
// at once when no navigation is pending, when a dialog opens (the action
// then says so) or when the tab closes.
func (p *Page) settle(ctx context.Context, bound time.Duration) error {
	end := time.Now().Add(bound)
	for {
		p.mu.Lock()
		n, wake := p.nav, p.dialogWake
		if n != nil && !n.loading && time.Since(n.since) > navStartGrace {
			p.navEnded() // it never began
			n = nil
		}
		p.mu.Unlock()
		if n == nil {
			return nil
		}
		if time.Now().After(end) {
			return tool.Errorf(tool.CodeTimeout, "the tab is still opening %s (an action made the page navigate there), and the page did not come within %v: the server may be slow or stuck; call again to wait more, or open another page with browser_navigate", n.url, bound.Round(time.Millisecond))
		}
		select {
		case <-n.done:
		case <-wake:
			return nil
		case <-p.ctx.Done():
			return nil
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(min(pollInterval, time.Until(end)+time.Millisecond)):
		}
	}
}

// settleBound is how long an action waits for a navigation the page
// started: as long as browser_navigate waits for a page (NavigateTimeout),
// ending a moment before the call does, to say so.
func settleBound(ctx context.Context) time.Duration {
	d, _ := tool.WithinCall(ctx, NavigateTimeout)
	return d
}

// noSettle marks the context of steps that must not wait for a
// navigation the page started: those of a navigation of the tool's own
// (browser_navigate), which replaces it, and afterInput's.
type noSettle struct{}

// withoutSettle is ctx marked noSettle.
func withoutSettle(ctx context.Context) context.Context {
	return context.WithValue(ctx, noSettle{}, true)
}

// input runs input steps (a click, keys, a drag) on the tab, then
// afterInput.
func (p *Page) input(ctx context.Context, steps ...chromedp.Action[chromedp.Void]) error {
	if err := p.run(ctx, steps...); err != nil {
		return err
	}
	p.afterInput(ctx)
	return nil
}

// afterInput gives the page a moment to act on the input it was given. A
// navigation the input caused (a link followed, a form submitted) is asked
// for by a task the page queues, which may run after the input is
// acknowledged; a timer queued after it fires once it ran, so when this
// returns its frameRequestedNavigation has come, and the next action waits
// for the new document (settle). It waits for nothing else: the page
// asking for a navigation (Chromium holds what is sent to the tab until
// the new document is there), a dialog open, or a page busy for a second
// end it.
func (p *Page) afterInput(ctx context.Context) {
	p.mu.Lock()
	idle, asked := p.nav == nil && p.pending == nil, p.navAsked
	p.mu.Unlock()
	if !idle {
		return
	}
	actx, cancel := context.WithTimeout(withoutSettle(ctx), time.Second)
	defer cancel()
	go func() {
		select {
		case <-asked:
			cancel()
		case <-actx.Done():
		}
	}()
	_, _ = p.evalRaw(actx, "new Promise((done) => setTimeout(done, 0))")
}

// Navigating is the address the tab is opening because of an action on
// the page (a link, a form submitted) while its new document has not come,
// and whether there is one.
func (p *Page) Navigating() (string, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.nav == nil {
		return "", false
	}
	return p.nav.url, true
}
