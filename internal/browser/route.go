package browser

import (
	"context"
	"fmt"
	"net/http"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/fetch"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"

	"github.com/barrhawk/barrhawk/internal/tool"
)

// RouteSpec is what browser_route asks for: the requests whose URL
// matches Pattern (a glob, as Playwright's) are answered with Status,
// Body and the headers, without reaching the network. A route with none
// of Status, Body and ContentType lets the request go on to the server
// with Headers added to it and RemoveHeaders taken out (as
// @playwright/mcp's browser_route does).
type RouteSpec struct {
	Pattern       string
	Status        *int64
	Body          *string
	ContentType   string
	Headers       []Header
	RemoveHeaders []string
}

// Header is one HTTP header.
type Header struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

// RouteInfo describes a route for browser_route_list.
type RouteInfo struct {
	Pattern       string   `json:"pattern"`
	Action        string   `json:"action"` // fulfill | continue
	Status        int64    `json:"status,omitempty"`
	ContentType   string   `json:"contentType,omitempty"`
	Body          string   `json:"body,omitempty"`
	BodyBytes     int      `json:"bodyBytes"`
	Headers       []Header `json:"headers,omitempty"`
	RemoveHeaders []string `json:"removeHeaders,omitempty"`
	Hits          int64    `json:"hits"`
}

// route is a RouteSpec made ready: its pattern compiled, its answer built.
type route struct {
	spec    RouteSpec
	re      *regexp.Regexp
	fulfill bool
	status  int64
	body    []byte
	headers []*fetch.HeaderEntry
	hits    int64
}

// sessionNet is a session's network state: its routes, in the order they
// were added (the last matching one answers), and whether it is offline.
type sessionNet struct {
	mu      sync.Mutex
	routes  []*route
	offline bool
}

// mockAnswer is what a route answered a request with, kept for the
// network record (browser_network_requests, the HAR).
type mockAnswer struct {
	status  int64
	headers []*fetch.HeaderEntry
	body    []byte
}

// listBodyMax bounds the body browser_route_list shows of a route.
const listBodyMax = 200

// GlobRegexp turns a URL glob into the regular expression Playwright
// matches it as (urlMatch.ts, globToRegexPattern, 1.52 and later): * is
// any run of characters but /, ** any run at all (**/ also none), {a,b}
// one of the alternatives, \ escapes the next character, and every other
// character, ? included, stands for itself. The whole URL must match.
func GlobRegexp(glob string) (*regexp.Regexp, error) {
	var b strings.Builder
	b.WriteString("^")
	inGroup := false
	for i := 0; i < len(glob); i++ {
		c := glob[i]
		switch {
		case c == '\\' && i+1 < len(glob):
			i++
			b.WriteString(regexp.QuoteMeta(string(glob[i])))
		case c == '*':
			before := byte(0)
			if i > 0 {
				before = glob[i-1]
			}
			stars := 1
			for i+1 < len(glob) && glob[i+1] == '*' {
				stars++
				i++
			}
			switch {
			case stars == 1:
				b.WriteString("([^/]*)")
			case i+1 < len(glob) && glob[i+1] == '/':
				if before == '/' {
					b.WriteString("((.+/)|)")
				} else {
					b.WriteString("(.*/)")
				}
				i++
			default:
				b.WriteString("(.*)")
			}
		case c == '{':
			if inGroup {
				return nil, fmt.Errorf("nested '{' is not supported")
			}
			inGroup = true
			b.WriteString("(")
		case c == '}':
			if !inGroup {
				return nil, fmt.Errorf("unmatched '}'")
			}
			inGroup = false
			b.WriteString(")")
		case c == ',' && inGroup:
			b.WriteString("|")
		default:
			b.WriteString(regexp.QuoteMeta(string(c)))
		}
	}
	if inGroup {
		return nil, fmt.Errorf("unmatched '{'")
	}
	b.WriteString("$")
	return regexp.Compile(b.String())
}

// fetchPattern is a Fetch-domain URL pattern that every URL the glob
// matches also matches (a wider net; the glob decides): the protocol's
// wildcards are * and ?, and \ escapes.
func fetchPattern(glob string) string {
	var b strings.Builder
	inGroup, wild := false, false // wild: the last thing written is a *
	for i := 0; i < len(glob); i++ {
		c := glob[i]
		was := wild
		wild = false
		switch {
		case inGroup: // the alternatives are under the * written at {
			wild = was
			if c == '\\' {
				i++
			} else if c == '}' {
				inGroup = false
			}
		case c == '\\' && i+1 < len(glob):
			i++
			if glob[i] == '*' || glob[i] == '?' || glob[i] == '\\' {
				b.WriteByte('\\')
			}
			b.WriteByte(glob[i])
		case c == '{':
			inGroup, wild = true, true
			if !was {
				b.WriteByte('*')
			}
		case c == '*':
			stars := 1
			for i+1 < len(glob) && glob[i+1] == '*' {
				stars++
				i++
			}
			if stars > 1 && i+1 < len(glob) && glob[i+1] == '/' {
				i++ // **/ may stand for nothing, its / included
			}
			if !was {
				b.WriteByte('*')
			}
			wild = true
		case c == '?':
			b.WriteString(`\?`)
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

// newRoute checks a spec and makes it ready.
func newRoute(spec RouteSpec) (*route, error) {
	if strings.TrimSpace(spec.Pattern) == "" {
		return nil, tool.Errorf(tool.CodeInvalidArgs, "argument \"pattern\": a URL glob is required, such as \"**/api/users\" or \"**/*.{png,jpg}\"")
	}
	if !strings.HasPrefix(spec.Pattern, "*") && !strings.Contains(spec.Pattern, ":") {
		return nil, tool.Errorf(tool.CodeInvalidArgs, "argument \"pattern\": %q would have to match the whole URL (scheme and host included); start it with ** to match any origin, such as \"**%s\"", spec.Pattern, "/"+strings.TrimLeft(spec.Pattern, "/"))
	}
	re, err := GlobRegexp(spec.Pattern)
	if err != nil {
		return nil, tool.Errorf(tool.CodeInvalidArgs, "argument \"pattern\": %q is not a valid glob (%v); use * (within one path segment), ** (across segments) and {a,b}", spec.Pattern, err)
	}
	r := &route{spec: spec, re: re, fulfill: spec.Status != nil || spec.Body != nil || spec.ContentType != "", status: http.StatusOK}
	if spec.Status != nil {
		r.status = *spec.Status
		if r.status < 100 || r.status > 599 {
			return nil, tool.Errorf(tool.CodeInvalidArgs, "argument \"status\": %d is not an HTTP status; give one from 100 to 599, such as 200, 404 or 503", r.status)
		}
	}
	for _, h := range spec.Headers {
		if h.Name == "" || strings.ContainsAny(h.Name, ": \r\n") || strings.ContainsAny(h.Value, "\r\n") {
			return nil, tool.Errorf(tool.CodeInvalidArgs, "argument \"headers\": %q is not a header; write each as \"Name: Value\"", h.Name+": "+h.Value)
		}
	}
	if !r.fulfill {
		if len(spec.Headers) == 0 && len(spec.RemoveHeaders) == 0 {
			return nil, tool.Errorf(tool.CodeInvalidArgs, "browser_route %q: give what to answer (status, body, contentType) or how to change the request (headers, removeHeaders)", spec.Pattern)
		}
		return r, nil
	}
	if spec.Body != nil {
		r.body = []byte(*spec.Body)
	}
	hasType := false
	for _, h := range spec.Headers {
		if strings.EqualFold(h.Name, "content-type") {
			hasType = true
		}
		r.headers = append(r.headers, &fetch.HeaderEntry{Name: h.Name, Value: h.Value})
	}
	if spec.ContentType != "" {
		r.headers = slices.DeleteFunc(r.headers, func(h *fetch.HeaderEntry) bool { return strings.EqualFold(h.Name, "content-type") })
		r.headers = append(r.headers, &fetch.HeaderEntry{Name: "Content-Type", Value: spec.ContentType})
	} else if !hasType && len(r.body) > 0 {
		r.headers = append(r.headers, &fetch.HeaderEntry{Name: "Content-Type", Value: "text/plain; charset=utf-8"})
	}
	r.headers = append(r.headers, &fetch.HeaderEntry{Name: "Content-Length", Value: strconv.Itoa(len(r.body))})
	return r, nil
}

func (r *route) info() RouteInfo {
	in := RouteInfo{Pattern: r.spec.Pattern, Action: "continue", Headers: r.spec.Headers, RemoveHeaders: r.spec.RemoveHeaders, Hits: r.hits}
	if r.fulfill {
		in.Action, in.Status, in.ContentType, in.BodyBytes = "fulfill", r.status, r.spec.ContentType, len(r.body)
		in.Body = string(r.body)
		if len(in.Body) > listBodyMax {
			in.Body = strings.ToValidUTF8(in.Body[:listBodyMax], "") + "…"
		}
	}
	return in
}

// match returns the last route whose glob matches url, counting the hit.
func (n *sessionNet) match(url string) *route {
	n.mu.Lock()
	defer n.mu.Unlock()
	for i := len(n.routes) - 1; i >= 0; i-- {
		if r := n.routes[i]; r.re.MatchString(url) {
			r.hits++
			return r
		}
	}
	return nil
}

// patterns are the Fetch.enable patterns of the routes (none: interception
// off).
func (n *sessionNet) patterns() []*fetch.RequestPattern {
	n.mu.Lock()
	defer n.mu.Unlock()
	seen := map[string]bool{}
	var out []*fetch.RequestPattern
	for _, r := range n.routes {
		p := fetchPattern(r.spec.Pattern)
		if !seen[p] {
			seen[p] = true
			out = append(out, &fetch.RequestPattern{URLPattern: p, RequestStage: fetch.RequestStageRequest})
		}
	}
	return out
}

func (n *sessionNet) isOffline() bool {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.offline
}

// activeSession is the active session and a copy of its tabs.
func (b *Browser) activeSession() (*Session, []*Page, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed {
		return nil, nil, tool.Errorf(tool.CodeToolError, "the browser was closed; call browser_launch (or any browser tool) to start a new one")
	}
	s := b.sessions[b.active]
	if s == nil {
		return nil, nil, tool.Errorf(tool.CodeToolError, "no active session; open one with browser_session_new")
	}
	return s, slices.Clone(s.pages), nil
}

// AddRoute adds a route to the active session: every tab of it, open now
// or later, answers the matching requests (navigations, fetch, XHR,
// images, ...) so. A later route wins over an earlier one for the same
// URL.
func (b *Browser) AddRoute(ctx context.Context, spec RouteSpec) (RouteInfo, error) {
	r, err := newRoute(spec)
	if err != nil {
		return RouteInfo{}, err
	}
	s, pages, err := b.activeSession()
	if err != nil {
		return RouteInfo{}, err
	}
	s.net.mu.Lock()
	s.net.routes = append(s.net.routes, r)
	s.net.mu.Unlock()
	return r.info(), applyAll(ctx, pages, s.applyFetch)
}

// Unroute removes the active session's routes of pattern (all of them
// when pattern is ""), and returns how many it removed.
func (b *Browser) Unroute(ctx context.Context, pattern string) (int, error) {
	s, pages, err := b.activeSession()
	if err != nil {
		return 0, err
	}
	s.net.mu.Lock()
	n := len(s.net.routes)
	if pattern == "" {
		s.net.routes = nil
	} else {
		s.net.routes = slices.DeleteFunc(s.net.routes, func(r *route) bool { return r.spec.Pattern == pattern })
	}
	n -= len(s.net.routes)
	s.net.mu.Unlock()
	return n, applyAll(ctx, pages, s.applyFetch)
}

// Routes lists the active session's routes, oldest first, with their hits.
func (b *Browser) Routes() ([]RouteInfo, error) {
	s, _, err := b.activeSession()
	if err != nil {
		return nil, err
	}
	s.net.mu.Lock()
	defer s.net.mu.Unlock()
	out := make([]RouteInfo, len(s.net.routes))
	for i, r := range s.net.routes {
		out[i] = r.info()
	}
	return out, nil
}

// SetOffline takes the active session off the network (every request
// fails, navigator.onLine is false) or back on, in every tab of it, later
// ones too.
func (b *Browser) SetOffline(ctx context.Context, offline bool) error {
	s, pages, err := b.activeSession()
	if err != nil {
		return err
	}
	s.net.mu.Lock()
	s.net.offline = offline
	s.net.mu.Unlock()
	return applyAll(ctx, pages, s.applyOffline)
}

// applyAll applies f to each tab, naming the first that failed.
func applyAll(ctx context.Context, pages []*Page, f func(context.Context, *Page) error) error {
	for i, p := range pages {
		if p.ctx.Err() != nil {
			continue // closed meanwhile
		}
		if err := f(ctx, p); err != nil {
			return describe(fmt.Sprintf("tab %d", i), err)
		}
	}
	return nil
}

// cdpCall runs f on the tab's target under the call's context, without
// waiting for a navigation to settle or for a dialog: the emulation and
// interception commands apply whatever the page does.
func (p *Page) cdpCall(ctx context.Context, f func(ctx context.Context) error) error {
	tctx, done := p.withCall(ctx)
	defer done()
	return chromedp.Do(tctx, chromedp.Func(func(ctx context.Context, _ *chromedp.Target) error { return f(ctx) }))
}

// fetchCmds turn a tab's interception on for the session's routes, or
// off when it has none. A service worker answering the page's requests
// would answer them past the routes: while routes are active, the page's
// requests go around it (Network.setBypassServiceWorker), as Playwright's
// do.
func (s *Session) fetchCmds() []setupCmd {
	pats := s.net.patterns()
	fail := func(err error) error { return describe("route the tab's requests", err) }
	bypass := setupCmd{network.SetBypassServiceWorker.Method, network.SetBypassServiceWorkerParams{Bypass: len(pats) > 0}, fail}
	if len(pats) == 0 {
		return []setupCmd{bypass, {fetch.Disable.Method, cdp.Empty{}, fail}}
	}
	return []setupCmd{bypass, {fetch.Enable.Method, fetch.EnableParams{Patterns: pats}, fail}}
}

// applyFetch turns the tab's interception on for the session's routes, or
// off when it has none.
func (s *Session) applyFetch(ctx context.Context, p *Page) error {
	for _, c := range s.fetchCmds() {
		if err := p.send(ctx, c); err != nil {
			return err
		}
	}
	return nil
}

// emulateNetworkConditions is Network.emulateNetworkConditions, which
// cdproto no longer lists (deprecated for emulateNetworkConditionsByRule,
// which leaves navigator.onLine alone); Chromium answers it, and
// Playwright's setOffline sends it.
var emulateNetworkConditions = cdp.Command[networkConditions, cdp.Empty]{Method: "Network.emulateNetworkConditions"}

type networkConditions struct {
	Offline            bool    `json:"offline"`
	Latency            float64 `json:"latency"`
	DownloadThroughput float64 `json:"downloadThroughput"`
	UploadThroughput   float64 `json:"uploadThroughput"`
}

// conditions are the session's network conditions: offline or not.
func (n *sessionNet) conditions() networkConditions {
	return networkConditions{Offline: n.isOffline(), DownloadThroughput: -1, UploadThroughput: -1}
}

// applyOffline sets the tab's network to the session's state.
func (s *Session) applyOffline(ctx context.Context, p *Page) error {
	c := s.net.conditions()
	return p.cdpCall(ctx, func(ctx context.Context) error {
		_, err := chromedp.Call(ctx, emulateNetworkConditions, c)
		return err
	})
}

// onRequestPaused runs in the tab's event loop, p.mu held: it finds the
// route answering the request, notes a mocked answer in the network
// record, and answers from a goroutine of its own (no command may run
// here).
func (p *Page) onRequestPaused(e *fetch.EventRequestPaused) {
	var r *route
	if p.session != nil {
		r = p.session.net.match(e.Request.URL + e.Request.URLFragment)
		if r == nil && e.Request.URLFragment != "" {
			r = p.session.net.match(e.Request.URL)
		}
	}
	if r != nil && r.fulfill {
		m := &mockAnswer{status: r.status, headers: r.headers, body: r.body}
		nid := network.RequestID(e.NetworkID)
		if rec := p.byID[nid]; rec != nil && nid != "" {
			rec.mock(m)
		} else if nid != "" {
			if p.mocked == nil {
				p.mocked = map[network.RequestID]*mockAnswer{}
			}
			if len(p.mocked) < maxRecords {
				p.mocked[nid] = m
			}
		}
	}
	go p.answerPaused(e, r) //nolint:errcheck // a tab closed meanwhile has nothing left to answer
}

// answerPaused answers a paused request: the route's mocked response, the
// request changed as the route says, or the request as it was.
func (p *Page) answerPaused(e *fetch.EventRequestPaused, r *route) error {
	switch {
	case r != nil && r.fulfill:
		_, err := chromedp.Call(p.ctx, fetch.FulfillRequest, fetch.FulfillRequestParams{RequestID: e.RequestID, ResponseCode: r.status, ResponseHeaders: r.headers, Body: r.body})
		return err
	case r != nil:
		_, err := chromedp.Call(p.ctx, fetch.ContinueRequest, fetch.ContinueRequestParams{RequestID: e.RequestID, Headers: changedHeaders(e.Request.Headers, r.spec)})
		return err
	default:
		_, err := chromedp.Call(p.ctx, fetch.ContinueRequest, fetch.ContinueRequestParams{RequestID: e.RequestID})
		return err
	}
}

// changedHeaders are the request's headers with the route's added and its
// removed ones taken out.
func changedHeaders(h network.Headers, spec RouteSpec) []*fetch.HeaderEntry {
	var out []*fetch.HeaderEntry
	drop := func(name string) bool {
		for _, d := range spec.RemoveHeaders {
			if strings.EqualFold(d, name) {
				return true
			}
		}
		for _, a := range spec.Headers {
			if strings.EqualFold(a.Name, name) {
				return true
			}
		}
		return false
	}
	for k, v := range h {
		if !drop(k) {
			out = append(out, &fetch.HeaderEntry{Name: k, Value: fmt.Sprint(v)})
		}
	}
	for _, a := range spec.Headers {
		out = append(out, &fetch.HeaderEntry{Name: a.Name, Value: a.Value})
	}
	if out == nil {
		out = []*fetch.HeaderEntry{} // an empty list, not "leave them be"
	}
	return out
}
