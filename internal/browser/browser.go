// Package browser drives Chromium for the browser tools through chromedp:
// one browser per Igor, kept in the Igor's tool.Resources; named sessions,
// each an isolated browser context (its own cookies and storage) with its
// tabs; the page actions the tools and the assertions share (find an
// element by any selector and wait until it can be acted on, click, type,
// read, screenshot); and the console, network and dialog records of each
// tab.
package browser

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/fetch"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/cdproto/target"
	"github.com/chromedp/cdproto/tracing"
	"github.com/chromedp/chromedp"

	"github.com/barrhawk/barrhawk/internal/tool"
)

// Options say how a browser starts.
type Options struct {
	// Headless runs without a window (the default everywhere here).
	Headless bool
	// Width and Height are the viewport's size (default 1280×720).
	Width, Height int
}

// Default viewport.
const (
	DefaultWidth  = 1280
	DefaultHeight = 720
	// DefaultSession is the session the first tab belongs to.
	DefaultSession = "default"
	// maxRecords bounds the console messages and requests kept per tab.
	maxRecords = 1000
)

// Browser is one running Chromium with its sessions. Safe for concurrent
// use; actions on one tab are serialised by the callers' own order.
type Browser struct {
	mu          sync.Mutex
	allocCancel context.CancelFunc
	rootCancel  context.CancelFunc
	root        context.Context
	sessions    map[string]*Session
	active      string
	opts        Options
	started     time.Time
	closed      bool
	// evicted counts the idle tabs closed.
	evicted int
	// lastUsed is when a tool last asked for the browser (Unix ns).
	lastUsed atomic.Int64
	// video is the recording of browser_start_video, if any (video.go).
	video *recording
}

// Session is an isolated browser context: its own cookies, storage and
// tabs.
type Session struct {
	Name   string
	pages  []*Page
	active int
	// first is the chromedp context that created the browser context; new
	// tabs of the session derive from it.
	first context.Context
	// net holds the session's routes and offline state, emu its
	// emulation: both apply to every tab of the session, new ones too
	// (see prepare).
	net *sessionNet
	emu *sessionEmu
	// steps records what was done in the session, for browser_export_test;
	// vars counts the tab variables named in it, per prefix (newVar).
	steps steps
	vars  map[string]int
}

// Page is one tab.
type Page struct {
	ctx    context.Context
	cancel context.CancelFunc

	mu       sync.Mutex
	console  []ConsoleMessage
	requests []*Request
	byID     map[network.RequestID]*Request
	dialogs  []Dialog
	policy   DialogPolicy
	pending  *Dialog
	// dialogOpen is signalled when a dialog opens (for handle_dialog).
	dialogOpen chan struct{}
	// dialogWake is closed (and replaced) when a dialog opens and stays
	// open: an action waiting on the page returns instead of hanging.
	dialogWake chan struct{}
	// lastUsed is when a tool last acted on the tab (Unix ns), for the
	// eviction of idle tabs.
	lastUsed atomic.Int64
	// mouseX, mouseY are where the mouse was last moved.
	mouseX, mouseY float64
	// held is what the keyboard and mouse hold down (input.go); nil until
	// a key or button is first held.
	held *heldInput
	// paused stops the recording of requests (browser_network_requests stop).
	paused bool
	// tracing, trace and traceDone hold a trace being taken.
	tracing   bool
	trace     [][]byte
	traceDone chan struct{}
	// frame is the tab's main frame (its id is the tab's); nav is the
	// navigation the page started in it whose new document has not come
	// yet (see trackNav); navAsked is closed (and replaced) when the page
	// asks for one.
	frame    cdp.FrameID
	nav      *pendingNav
	navAsked chan struct{}
	// session is the session the tab belongs to (its routes answer the
	// tab's paused requests); mocked holds the mocked answers of requests
	// paused before the network record saw them (see onRequestPaused).
	session *Session
	mocked  map[network.RequestID]*mockAnswer
	// varName is the tab's variable in the session's exported test (page,
	// page1, popup1, ...).
	varName string
	// cursor says the tab's video draws the mouse pointer (video.go).
	cursor atomic.Bool
	// popupsPending counts the popups the tab opened that are still being
	// set up, popups those set up and not reported yet; popupWake is
	// closed (and replaced) when one is done (popup.go).
	popupsPending int
	popups        []openedPopup
	popupWake     chan struct{}
}

// ConsoleMessage is one console entry or uncaught exception.
type ConsoleMessage struct {
	Type string `json:"type"`
	Text string `json:"text"`
	URL  string `json:"url,omitempty"`
	Line int64  `json:"line,omitempty"`
	Time string `json:"time"`
}

// Request is one network request and, once it came, its response.
type Request struct {
	ID           string  `json:"id"`
	Method       string  `json:"method"`
	URL          string  `json:"url"`
	ResourceType string  `json:"resourceType"`
	Status       int64   `json:"status,omitempty"`
	StatusText   string  `json:"statusText,omitempty"`
	MimeType     string  `json:"mimeType,omitempty"`
	Failed       string  `json:"failed,omitempty"`
	Started      string  `json:"started"`
	DurationMs   float64 `json:"durationMs,omitempty"`
	// Mocked says a route of browser_route answered the request.
	Mocked bool `json:"mocked,omitempty"`
	start  time.Time
	// har holds what the HAR of the request needs beyond the fields above.
	har harData
}

// Dialog is a JavaScript dialog (alert, confirm, prompt, beforeunload)
// and how it was answered.
type Dialog struct {
	Type     string `json:"type"`
	Message  string `json:"message"`
	Default  string `json:"defaultPrompt,omitempty"`
	Answered string `json:"answered,omitempty"` // accepted | dismissed
	Prompt   string `json:"promptText,omitempty"`
	Time     string `json:"time"`
}

// DialogPolicy says how dialogs are answered as they open: "accept",
// "dismiss", or "" (left open for browser_handle_dialog; any action on the
// page waits meanwhile, so the tool answers it after a moment).
type DialogPolicy struct {
	Action     string
	PromptText string
}

// Launch starts Chromium. The process is the barrhawk binary that lifts
// the Igor's address-space limit and execs the browser (see
// ExecIfBrowserStart), started by chromedp with a fresh user data
// directory, killed with the Igor (the death signal) and with Close.
func Launch(ctx context.Context, opts Options) (*Browser, error) {
	path, err := Find()
	if err != nil {
		return nil, tool.Errorf(tool.CodeToolError, "browser_launch: %v", err)
	}
	self, err := os.Executable()
	if err != nil {
		return nil, tool.Errorf(tool.CodeInternal, "browser_launch: find the barrhawk binary: %v", err)
	}
	if opts.Width <= 0 || opts.Height <= 0 {
		opts.Width, opts.Height = DefaultWidth, DefaultHeight
	}
	aopts := append([]chromedp.ExecAllocatorOption{}, chromedp.DefaultExecAllocatorOptions[:]...)
	if shim {
		aopts = append(aopts, chromedp.ExecPath(self), chromedp.Env(execEnv+"="+path))
	} else {
		aopts = append(aopts, chromedp.ExecPath(path))
	}
	aopts = append(aopts,
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-quic", true),
		chromedp.WindowSize(opts.Width, opts.Height),
	)
	if !opts.Headless {
		aopts = append(aopts, chromedp.VisibleWindow)
	}
	// The allocator and the browser outlive the call that launched them:
	// they hang off a context of their own, cancelled by Close.
	allocCtx, allocCancel := chromedp.NewExecAllocator(context.Background(), aopts...)
	root, rootCancel := chromedp.NewContext(allocCtx, chromedp.WithBrowserOption(chromedp.WithBrowserErrorf(quietErrors)))
	b := &Browser{allocCancel: allocCancel, rootCancel: rootCancel, root: root, sessions: map[string]*Session{}, active: DefaultSession, opts: opts, started: time.Now()}
	started := make(chan error, 1)
	go func() { started <- chromedp.Do(root) }() // starts the browser and its first tab
	select {
	case err = <-started:
	case <-ctx.Done():
		err = ctx.Err()
	}
	if err != nil {
		b.Close()
		return nil, tool.Errorf(tool.CodeToolError, "browser_launch: start %s: %v", path, err)
	}
	p, err := b.adopt(root, rootCancel)
	if err != nil {
		b.Close()
		return nil, err
	}
	s := newSession(DefaultSession, root, SessionOptions{})
	s.pages = []*Page{p}
	p.session = s
	b.sessions[DefaultSession] = s
	b.touch()
	if idle := idleTimeout(); idle > 0 {
		go b.closeWhenIdle(idle)
	}
	if err := p.setViewport(ctx, opts.Width, opts.Height); err != nil {
		b.Close()
		return nil, err
	}
	if err := b.watchPopups(ctx, p); err != nil {
		b.Close()
		return nil, err
	}
	return b, nil
}

// newPage is a Page of a chromedp tab context, recording nothing yet.
func newPage(ctx context.Context, cancel context.CancelFunc) *Page {
	p := &Page{ctx: ctx, cancel: cancel, byID: map[network.RequestID]*Request{}, dialogOpen: make(chan struct{}, 1), dialogWake: make(chan struct{}), navAsked: make(chan struct{}), popupWake: make(chan struct{}), policy: DialogPolicy{Action: "dismiss"}, varName: "page"}
	p.touch()
	return p
}

// adopt makes a Page of a chromedp tab context: its listeners record the
// console, the network and dialogs.
func (b *Browser) adopt(ctx context.Context, cancel context.CancelFunc) (*Page, error) {
	p := newPage(ctx, cancel)
	if c := chromedp.FromContext(ctx); c != nil && c.Target != nil {
		p.frame = cdp.FrameID(c.Target.TargetID)
	}
	if err := chromedp.Listen(ctx, p.record); err != nil {
		return nil, tool.Errorf(tool.CodeToolError, "listen to the tab: %v", err)
	}
	if err := chromedp.Do(ctx, chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		_, err := chromedp.Call(ctx, network.Enable, network.EnableParams{})
		return err
	})); err != nil {
		return nil, tool.Errorf(tool.CodeToolError, "enable the network domain: %v", err)
	}
	return p, nil
}

// record runs in the tab's event loop: it only appends, and answers
// dialogs from a goroutine of its own (no command may run here).
func (p *Page) record(ev any) {
	now := time.Now()
	p.mu.Lock()
	defer p.mu.Unlock()
	switch e := ev.(type) {
	case *runtime.EventConsoleAPICalled:
		var parts []string
		for _, a := range e.Args {
			parts = append(parts, remoteText(a))
		}
		m := ConsoleMessage{Type: string(e.Type), Text: strings.Join(parts, " "), Time: now.UTC().Format(time.RFC3339Nano)}
		if e.StackTrace != nil && len(e.StackTrace.CallFrames) > 0 {
			m.URL, m.Line = e.StackTrace.CallFrames[0].URL, e.StackTrace.CallFrames[0].LineNumber+1
		}
		p.console = appendBounded(p.console, m)
	case *runtime.EventExceptionThrown:
		text := e.ExceptionDetails.Text
		if e.ExceptionDetails.Exception != nil && e.ExceptionDetails.Exception.Description != "" {
			text = e.ExceptionDetails.Exception.Description
		}
		p.console = appendBounded(p.console, ConsoleMessage{Type: "exception", Text: text, URL: e.ExceptionDetails.URL, Line: e.ExceptionDetails.LineNumber + 1, Time: now.UTC().Format(time.RFC3339Nano)})
	case *tracing.EventDataCollected:
		for _, v := range e.Value {
			p.trace = append(p.trace, []byte(v))
		}
	case *tracing.EventTracingComplete:
		if p.traceDone != nil {
			close(p.traceDone)
			p.traceDone = nil
		}
	case *network.EventRequestWillBeSent:
		if p.paused {
			return
		}
		if old := p.byID[e.RequestID]; old != nil && e.RedirectResponse != nil {
			// A redirect: the request before it ends with this answer.
			old.noteResponse(e.RedirectResponse)
			old.DurationMs = float64(now.Sub(old.start).Microseconds()) / 1000
		}
		r := &Request{ID: string(e.RequestID), Method: e.Request.Method, URL: e.Request.URL, ResourceType: string(e.Type), Started: now.UTC().Format(time.RFC3339Nano), start: now}
		r.noteRequest(e.Request)
		if m := p.mocked[e.RequestID]; m != nil {
			r.mock(m)
			delete(p.mocked, e.RequestID)
		}
		p.byID[e.RequestID] = r
		p.requests = appendBounded(p.requests, r)
	case *network.EventResponseReceived:
		if r := p.byID[e.RequestID]; r != nil {
			r.Status, r.StatusText, r.MimeType = e.Response.Status, e.Response.StatusText, e.Response.MimeType
			r.noteResponse(e.Response)
		}
	case *network.EventLoadingFinished:
		if r := p.byID[e.RequestID]; r != nil {
			r.DurationMs = float64(now.Sub(r.start).Microseconds()) / 1000
			r.har.size, r.har.finished = e.EncodedDataLength, true
			delete(p.byID, e.RequestID)
		}
	case *fetch.EventRequestPaused:
		p.onRequestPaused(e)
	case *target.EventTargetCreated:
		p.notePopup(e)
	case *network.EventLoadingFailed:
		if r := p.byID[e.RequestID]; r != nil {
			r.Failed = e.ErrorText
			if e.Canceled {
				r.Failed = "canceled"
			}
			delete(p.byID, e.RequestID)
		}
	case *page.EventJavascriptDialogOpening:
		d := Dialog{Type: string(e.Type), Message: e.Message, Default: e.DefaultPrompt, Time: now.UTC().Format(time.RFC3339Nano)}
		pol := p.policy
		if pol.Action == "" {
			p.pending = &d
			select {
			case p.dialogOpen <- struct{}{}:
			default:
			}
			close(p.dialogWake)
			p.dialogWake = make(chan struct{})
			return
		}
		d.Answered, d.Prompt = answered(pol.Action), pol.PromptText
		p.dialogs = appendBounded(p.dialogs, d)
		go p.answer(pol.Action == "accept", pol.PromptText) //nolint:errcheck // the next action reports a stuck page
	default:
		p.trackNav(ev, now)
	}
}

func answered(action string) string {
	if action == "accept" {
		return "accepted"
	}
	return "dismissed"
}

// answer closes the open dialog.
func (p *Page) answer(accept bool, prompt string) error {
	return chromedp.Do(p.ctx, chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		_, err := chromedp.Call(ctx, page.HandleJavaScriptDialog, page.HandleJavaScriptDialogParams{Accept: accept, PromptText: prompt})
		return err
	}))
}

func appendBounded[T any](s []T, v T) []T {
	if len(s) >= maxRecords {
		s = slices.Delete(s, 0, len(s)-maxRecords+1)
	}
	return append(s, v)
}

// remoteText is the console's text for an argument.
func remoteText(o *runtime.RemoteObject) string {
	if o == nil {
		return ""
	}
	if len(o.Value) > 0 {
		s := string(o.Value)
		if len(s) >= 2 && s[0] == '"' {
			return strings.Trim(s, `"`)
		}
		return s
	}
	if o.Preview != nil && o.Type == runtime.RemoteObjectTypeObject && o.Subtype != "error" && o.Subtype != "node" {
		return previewText(o.Preview)
	}
	if o.Description != "" {
		return o.Description
	}
	return string(o.Type)
}

// previewText writes an object's preview as the console shows it:
// {a: 1, b: "x"} or [1, 2, 3], "…" when it has more.
func previewText(p *runtime.ObjectPreview) string {
	var b strings.Builder
	array := p.Subtype == "array" || p.Subtype == "typedarray"
	open, end := "{", "}"
	if array {
		open, end = "[", "]"
	}
	if !array && p.Description != "" && p.Description != "Object" {
		b.WriteString(p.Description + " ")
	}
	b.WriteString(open)
	for i, pp := range p.Properties {
		if i > 0 {
			b.WriteString(", ")
		}
		if !array {
			b.WriteString(pp.Name + ": ")
		}
		switch {
		case pp.ValuePreview != nil:
			b.WriteString(previewText(pp.ValuePreview))
		case pp.Type == "string":
			b.WriteString(strconv.Quote(pp.Value))
		default:
			b.WriteString(pp.Value)
		}
	}
	if p.Overflow {
		b.WriteString(", …")
	}
	b.WriteString(end)
	return b.String()
}

// Close ends the browser: every tab, the browser process and its children,
// and the user data directory.
func (b *Browser) Close() error {
	b.mu.Lock()
	if b.closed {
		b.mu.Unlock()
		return nil
	}
	b.closed = true
	b.mu.Unlock()
	b.endVideo() // while the browser still runs: its file is finished
	if b.rootCancel != nil {
		b.rootCancel()
	}
	if b.allocCancel != nil {
		b.allocCancel() // waits for the process and removes the data dir
	}
	return nil
}

// Active returns the active tab of the active session.
func (b *Browser) Active() (*Page, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed {
		return nil, tool.Errorf(tool.CodeToolError, "the browser was closed; call browser_launch (or any browser tool) to start a new one")
	}
	s := b.sessions[b.active]
	if s == nil || len(s.pages) == 0 {
		return nil, tool.Errorf(tool.CodeToolError, "session %q has no open tab; open one with browser_tabs {action: \"new\"}", b.active)
	}
	return s.pages[s.active], nil
}

// NewSession makes an isolated session (own cookies and storage) with one
// blank tab, and makes it active.
func (b *Browser) NewSession(ctx context.Context, name string) (*Page, error) {
	return b.NewSessionWith(ctx, name, SessionOptions{})
}

// NewSessionWith is NewSession with the session's emulation (device,
// viewport, user agent, locale, time zone, geolocation, permissions, colour
// scheme, offline), which applies to every tab of it, later ones too.
func (b *Browser) NewSessionWith(ctx context.Context, name string, o SessionOptions) (*Page, error) {
	if err := o.check(); err != nil {
		return nil, err
	}
	b.mu.Lock()
	if _, dup := b.sessions[name]; dup {
		b.mu.Unlock()
		return nil, tool.Errorf(tool.CodeInvalidArgs, "a session %q exists already; switch to it with browser_session_switch, or pick another name", name)
	}
	b.mu.Unlock()
	tctx, cancel := chromedp.NewContext(b.root, chromedp.WithNewBrowserContext())
	if err := chromedp.Do(tctx); err != nil {
		cancel()
		return nil, tool.Errorf(tool.CodeToolError, "open session %q: %v", name, err)
	}
	p, err := b.adopt(tctx, cancel)
	if err != nil {
		cancel()
		return nil, err
	}
	s := newSession(name, tctx, o)
	if err := b.startSession(ctx, s, p, o); err != nil {
		cancel()
		return nil, err
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if _, dup := b.sessions[name]; dup {
		cancel()
		return nil, tool.Errorf(tool.CodeInvalidArgs, "a session %q exists already; switch to it with browser_session_switch, or pick another name", name)
	}
	s.pages = []*Page{p}
	b.sessions[name] = s
	b.active = name
	return p, nil
}

// Switch makes session name active.
func (b *Browser) Switch(name string) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if _, ok := b.sessions[name]; !ok {
		return tool.Errorf(tool.CodeNotFound, "no session %q; sessions: %s", name, strings.Join(b.sessionNames(), ", "))
	}
	b.active = name
	return nil
}

func (b *Browser) sessionNames() []string {
	names := make([]string, 0, len(b.sessions))
	for n := range b.sessions {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// SessionInfo describes a session for browser_session_list.
type SessionInfo struct {
	Name   string   `json:"name"`
	Active bool     `json:"active"`
	Tabs   []string `json:"tabs"`
}

// Sessions lists the sessions with the URLs of their tabs.
func (b *Browser) Sessions(ctx context.Context) []SessionInfo {
	b.mu.Lock()
	names := b.sessionNames()
	type snap struct {
		name  string
		pages []*Page
	}
	var snaps []snap
	for _, n := range names {
		snaps = append(snaps, snap{n, slices.Clone(b.sessions[n].pages)})
	}
	active := b.active
	b.mu.Unlock()
	out := make([]SessionInfo, 0, len(snaps))
	for _, s := range snaps {
		info := SessionInfo{Name: s.name, Active: s.name == active}
		for _, p := range s.pages {
			u, _ := p.URL(ctx)
			info.Tabs = append(info.Tabs, u)
		}
		out = append(out, info)
	}
	return out
}

// Tabs of the active session: list, new, select, close.

// TabInfo describes a tab.
type TabInfo struct {
	Index  int    `json:"index"`
	URL    string `json:"url"`
	Title  string `json:"title"`
	Active bool   `json:"active"`
	// Var names the tab in the session's exported test (page, page1,
	// popup1, ...).
	Var string `json:"var"`
}

// ListTabs lists the active session's tabs.
func (b *Browser) ListTabs(ctx context.Context) []TabInfo {
	b.mu.Lock()
	s := b.sessions[b.active]
	pages, active := slices.Clone(s.pages), s.active
	b.mu.Unlock()
	out := make([]TabInfo, len(pages))
	for i, p := range pages {
		u, _ := p.URL(ctx)
		t, _ := p.Title(ctx)
		out[i] = TabInfo{Index: i, URL: u, Title: t, Active: i == active, Var: p.varName}
	}
	return out
}

// NewTab opens a tab in the active session and makes it active.
func (b *Browser) NewTab(ctx context.Context) (*Page, int, error) {
	b.mu.Lock()
	s := b.sessions[b.active]
	b.mu.Unlock()
	tctx, cancel := chromedp.NewContext(s.first)
	if err := chromedp.Do(tctx); err != nil {
		cancel()
		return nil, 0, tool.Errorf(tool.CodeToolError, "open a tab: %v", err)
	}
	p, err := b.adopt(tctx, cancel)
	if err != nil {
		cancel()
		return nil, 0, err
	}
	if err := b.prepare(ctx, s, p); err != nil {
		cancel()
		return nil, 0, err
	}
	p.varName = s.newVar("page")
	b.mu.Lock()
	defer b.mu.Unlock()
	s.pages = append(s.pages, p)
	s.active = len(s.pages) - 1
	return p, s.active, nil
}

// SelectTab makes tab i of the active session active.
func (b *Browser) SelectTab(i int) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	s := b.sessions[b.active]
	if i < 0 || i >= len(s.pages) {
		return tool.Errorf(tool.CodeInvalidArgs, "argument \"index\": no tab %d; the session has %d (0 to %d)", i, len(s.pages), len(s.pages)-1)
	}
	s.active = i
	return nil
}

// CloseTab closes tab i of the active session. The first tab of a session
// holds its browser context and stays; closing the last other tab makes
// the previous one active.
func (b *Browser) CloseTab(i int) error {
	b.mu.Lock()
	s := b.sessions[b.active]
	if i < 0 || i >= len(s.pages) {
		b.mu.Unlock()
		return tool.Errorf(tool.CodeInvalidArgs, "argument \"index\": no tab %d; the session has %d (0 to %d)", i, len(s.pages), len(s.pages)-1)
	}
	if i == 0 {
		b.mu.Unlock()
		return tool.Errorf(tool.CodeInvalidArgs, "tab 0 holds the session; close the others, or the whole browser with browser_close")
	}
	p := s.pages[i]
	s.pages = slices.Delete(s.pages, i, i+1)
	if s.active >= len(s.pages) {
		s.active = len(s.pages) - 1
	}
	b.mu.Unlock()
	p.cancel()
	return nil
}

// IsHeadless says whether the browser runs without a window.
func (b *Browser) IsHeadless() bool { return b.opts.Headless }

// Uptime is how long the browser has run.
func (b *Browser) Uptime() time.Duration { return time.Since(b.started) }

// Lookup returns the Igor's browser, if one runs.
func Lookup(res *tool.Resources) (*Browser, bool) {
	return tool.Lookup[*Browser](res, tool.KindBrowser, "browser")
}

// Get returns the Igor's browser, launching one (headless) on first use.
func Get(ctx context.Context, res *tool.Resources) (*Browser, error) {
	if res == nil {
		return nil, tool.Errorf(tool.CodeInternal, "browser tools need a worker's resources")
	}
	v, err := res.GetOrCreate(tool.KindBrowser, "browser", func() (any, func() error, error) {
		b, err := Launch(ctx, Options{Headless: Headless()})
		if err != nil {
			return nil, nil, err
		}
		return b, b.Close, nil
	})
	if err != nil {
		return nil, err
	}
	b := v.(*Browser)
	if b.isClosed() { // closed by browser_close's peer paths or by idleness
		res.Close(tool.KindBrowser, "browser") //nolint:errcheck // already closed
		return Get(ctx, res)
	}
	b.touch()
	return b, nil
}

func (b *Browser) isClosed() bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.closed
}

// ActivePage is Get then Active: the page the tools act on.
func ActivePage(ctx context.Context, res *tool.Resources) (*Page, error) {
	b, err := Get(ctx, res)
	if err != nil {
		return nil, err
	}
	p, err := b.Active()
	if err == nil {
		p.touch()
	}
	return p, err
}

// usable says why no action can run on the tab now: the browser or the
// tab is closed, or a JavaScript dialog left open blocks the page.
func (p *Page) usable() error {
	if p.ctx.Err() != nil {
		return tool.Errorf(tool.CodeToolError, "the browser or the tab is closed; call browser_launch (or any browser tool) to start again, or browser_tabs {action: \"list\"} to see the open tabs")
	}
	p.mu.Lock()
	d := p.pending
	p.mu.Unlock()
	if d != nil {
		return dialogBlocks(d)
	}
	return nil
}

// dialogBlocks is the error of an action on a page a dialog holds.
func dialogBlocks(d *Dialog) error {
	return tool.Errorf(tool.CodeToolError, "a JavaScript %s dialog is open (%q) and holds the page: answer it with browser_handle_dialog {action: \"accept\"} or {action: \"dismiss\"}", d.Type, d.Message)
}

// PendingDialog is the dialog open now and waiting for
// browser_handle_dialog, or nil.
func (p *Page) PendingDialog() *Dialog {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.pending == nil {
		return nil
	}
	d := *p.pending
	return &d
}

// run runs an action on the tab under the call's context: the call's
// timeout and cancellation reach the browser. An action that makes the page
// open a dialog left for browser_handle_dialog (a click on a button calling
// alert) returns once the dialog is open: the browser finishes it when the
// dialog is answered.
func (p *Page) run(ctx context.Context, steps ...chromedp.Action[chromedp.Void]) error {
	_, err := p.runUntilDialog(ctx, steps...)
	return err
}

// runUntilDialog is run, saying whether a dialog opened and holds the
// action. When the page is navigating because of an earlier action (a
// link, a form submitted), the action first waits for the new document
// (settle), unless ctx is marked noSettle.
func (p *Page) runUntilDialog(ctx context.Context, steps ...chromedp.Action[chromedp.Void]) (opened bool, err error) {
	if err := p.usable(); err != nil {
		return false, err
	}
	if ctx.Value(noSettle{}) == nil {
		if err := p.settle(ctx, settleBound(ctx)); err != nil {
			return false, err
		}
		if err := p.usable(); err != nil {
			return false, err
		}
	}
	p.touch()
	tctx, done := p.withCall(ctx)
	p.mu.Lock()
	wake := p.dialogWake
	p.mu.Unlock()
	errc := make(chan error, 1)
	go func() { errc <- chromedp.Do(tctx, steps...) }()
	select {
	case err := <-errc:
		done()
		return false, err
	case <-wake:
		go func() { <-errc; done() }()
		return true, nil
	}
}

// touch records a use of the tab.
func (p *Page) touch() { p.lastUsed.Store(time.Now().UnixNano()) }

// withCall is the tab's context, ending when the call's does too; call
// done when the action is over.
func (p *Page) withCall(ctx context.Context) (context.Context, func()) {
	tctx, cancel := context.WithCancel(p.ctx)
	stop := context.AfterFunc(ctx, cancel)
	return tctx, func() { stop(); cancel() }
}

func (p *Page) setViewport(ctx context.Context, w, h int) error {
	if err := p.run(ctx, chromedp.EmulateViewport(int64(w), int64(h))); err != nil {
		return tool.Errorf(tool.CodeToolError, "set the viewport to %d×%d: %v", w, h, err)
	}
	return nil
}

// Resize sets the viewport's size, keeping the session's device (scale,
// mobile and touch) when it emulates one.
func (p *Page) Resize(ctx context.Context, w, h int) error { return p.resize(ctx, w, h) }

// describe wraps a chromedp error with what was being done.
func describe(what string, err error) error {
	if err == nil {
		return nil
	}
	var te *tool.Error
	if errors.As(err, &te) {
		return te
	}
	if errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled) {
		return err
	}
	return tool.Errorf(tool.CodeToolError, "%s: %v", what, err)
}

// String names the page for messages.
func (p *Page) String() string { return fmt.Sprintf("tab %p", p) }

// Console returns the console messages recorded.
func (p *Page) Console() []ConsoleMessage {
	p.mu.Lock()
	defer p.mu.Unlock()
	return slices.Clone(p.console)
}

// ClearConsole forgets the console messages.
func (p *Page) ClearConsole() {
	p.mu.Lock()
	p.console = nil
	p.mu.Unlock()
}

// Requests returns the requests recorded, copies safe to read.
func (p *Page) Requests() []Request {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := make([]Request, len(p.requests))
	for i, r := range p.requests {
		out[i] = *r
	}
	return out
}

// ClearRequests forgets the requests.
func (p *Page) ClearRequests() {
	p.mu.Lock()
	p.requests, p.byID = nil, map[network.RequestID]*Request{}
	p.mu.Unlock()
}

// Dialogs returns the dialogs seen and the one open now, if any.
func (p *Page) Dialogs() ([]Dialog, *Dialog) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return slices.Clone(p.dialogs), p.pending
}

// SetDialogPolicy says how future dialogs are answered.
func (p *Page) SetDialogPolicy(pol DialogPolicy) {
	p.mu.Lock()
	p.policy = pol
	p.mu.Unlock()
}

// DialogPolicy is how dialogs are answered as they open now.
func (p *Page) DialogPolicy() DialogPolicy {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.policy
}

// AnswerDialog answers the open dialog, waiting up to wait for one to
// open; it returns the dialog answered.
func (p *Page) AnswerDialog(ctx context.Context, accept bool, prompt string, wait time.Duration) (*Dialog, error) {
	deadline := time.Now().Add(wait)
	for {
		p.mu.Lock()
		d := p.pending
		p.mu.Unlock()
		if d != nil {
			if err := p.answer(accept, prompt); err != nil {
				return nil, describe("answer the dialog", err)
			}
			p.mu.Lock()
			d.Answered, d.Prompt = answered(map[bool]string{true: "accept", false: "dismiss"}[accept]), prompt
			p.dialogs = appendBounded(p.dialogs, *d)
			p.pending = nil
			p.mu.Unlock()
			return d, nil
		}
		if time.Now().After(deadline) {
			return nil, nil
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-p.dialogOpen:
		case <-time.After(pollInterval):
		}
	}
}

// settings are the Igor's browser settings (igors.browserHeadless,
// tools.screenshotDir), set once at the Igor's init.
var settings = struct {
	sync.Mutex
	headless bool
	dir      string
	idle     time.Duration
}{headless: true}

// Configure sets whether browsers started lazily are headless, where the
// browser tools write files, and after how long unused a browser closes
// (0: never).
func Configure(headless bool, dir string, idle time.Duration) {
	settings.Lock()
	defer settings.Unlock()
	settings.headless, settings.dir, settings.idle = headless, dir, idle
}

// idleTimeout is the configured idle bound.
func idleTimeout() time.Duration {
	settings.Lock()
	defer settings.Unlock()
	return settings.idle
}

// touch records a use of the browser.
func (b *Browser) touch() { b.lastUsed.Store(time.Now().UnixNano()) }

// closeWhenIdle closes the browser once unused for idle, and before that
// the tabs unused for idle that are neither a session's first tab (which
// holds the session) nor its active one.
func (b *Browser) closeWhenIdle(idle time.Duration) {
	tick := time.NewTicker(min(idle/4+time.Millisecond, 30*time.Second))
	defer tick.Stop()
	for range tick.C {
		if b.isClosed() {
			return
		}
		if time.Since(time.Unix(0, b.lastUsed.Load())) > idle {
			b.Close()
			return
		}
		b.evictIdleTabs(idle)
	}
}

// evictIdleTabs closes the tabs unused for idle, except each session's
// first and active tabs; it returns how many it closed.
func (b *Browser) evictIdleTabs(idle time.Duration) int {
	b.mu.Lock()
	var gone []*Page
	for _, s := range b.sessions {
		activePage := s.pages[s.active]
		kept := s.pages[:1]
		for _, p := range s.pages[1:] {
			if p != activePage && time.Since(time.Unix(0, p.lastUsed.Load())) > idle {
				gone = append(gone, p)
				continue
			}
			kept = append(kept, p)
		}
		s.pages = kept
		s.active = slices.Index(kept, activePage)
	}
	b.evicted += len(gone)
	b.mu.Unlock()
	for _, p := range gone {
		p.cancel()
	}
	return len(gone)
}

// Evicted is how many idle tabs were closed.
func (b *Browser) Evicted() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.evicted
}

// Headless is the configured default.
func Headless() bool {
	settings.Lock()
	defer settings.Unlock()
	return settings.headless
}

// OutputDir is where the browser tools write files: the configured
// directory, else <BARRHAWK_HOME or ~/.barrhawk>/screenshots.
func OutputDir() string {
	settings.Lock()
	dir := settings.dir
	settings.Unlock()
	if dir != "" {
		return dir
	}
	home := os.Getenv("BARRHAWK_HOME")
	if home == "" {
		h, _ := os.UserHomeDir()
		home = h + "/.barrhawk"
	}
	return home + "/screenshots"
}

// PageCount is how many tabs are open, over all sessions.
func (b *Browser) PageCount() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed {
		return 0
	}
	n := 0
	for _, s := range b.sessions {
		n += len(s.pages)
	}
	return n
}
