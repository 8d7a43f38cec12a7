package browser

import (
	"cmp"
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/barrhawk/barrhawk/internal/tool"
)

// The page helper: the selector engine (selector.js defines selectors)
// and the helper using it (helper.js installs window.__bh), evaluated as
// one function body.
var (
	//go:embed js/selector.js
	selectorJS string
	//go:embed js/helper.js
	helperOnlyJS string
	//go:embed js/locator.js
	locatorJS string
	helperJS  = selectorJS + "\n" + helperOnlyJS + "\n" + locatorJS
)

// DefaultTimeout is how long an action waits for its element.
const DefaultTimeout = 5 * time.Second

// yes is a true to point at, for the protocol's optional fields.
var yes = true

// pollInterval is how often a wait looks again.
const pollInterval = 50 * time.Millisecond

// evalRaw evaluates expr in the page and returns its value as JSON,
// awaiting a promise. A thrown error is a TOOL_ERROR with its text.
func (p *Page) evalRaw(ctx context.Context, expr string) (json.RawMessage, error) {
	var out json.RawMessage
	opened, err := p.runUntilDialog(ctx, chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		res, err := chromedp.Call(ctx, runtime.Evaluate, runtime.EvaluateParams{Expression: expr, ReturnByValue: &yes, AwaitPromise: &yes, UserGesture: &yes})
		if err != nil {
			return err
		}
		if res.ExceptionDetails != nil {
			msg := res.ExceptionDetails.Text
			if res.ExceptionDetails.Exception != nil && res.ExceptionDetails.Exception.Description != "" {
				msg = res.ExceptionDetails.Exception.Description
			}
			return tool.Errorf(tool.CodeToolError, "the page's JavaScript threw: %s", msg)
		}
		if res.Result == nil || len(res.Result.Value) == 0 {
			out = json.RawMessage("null")
			return nil
		}
		out = json.RawMessage(res.Result.Value)
		return nil
	}))
	if err != nil {
		return nil, describe("evaluate in the page", err)
	}
	if opened {
		d := p.PendingDialog()
		if d == nil {
			d = &Dialog{Type: "JavaScript"}
		}
		return nil, tool.Errorf(tool.CodeToolError, "the script opened a dialog (%s %q), which holds the page until answered: answer it with browser_handle_dialog {action: \"accept\"} or {action: \"dismiss\"}", d.Type, d.Message)
	}
	return out, nil
}

// helper evaluates a call of window.__bh. The helper's source is sent only
// to a document that lacks it (a new page, after a navigation): the call is
// tried alone first, and a document without the helper answers a marker.
func (p *Page) helper(ctx context.Context, call string, out any) error {
	raw, err := p.evalRaw(ctx, "window.__bh ? window.__bh."+call+" : "+missingHelper)
	if err == nil && string(raw) == missingHelper {
		raw, err = p.evalRaw(ctx, "(() => {"+testIDSetting()+helperJS+" return window.__bh."+call+"; })()")
	}
	if err != nil {
		return selectorError(err)
	}
	if out == nil {
		return nil
	}
	if err := json.Unmarshal(raw, out); err != nil {
		return tool.Errorf(tool.CodeInternal, "the page helper answered %.200s: %v", raw, err)
	}
	return nil
}

// testIDAttribute is the attribute of Playwright's getByTestId
// (SetTestIDAttribute; data-testid when empty).
var testIDAttribute atomic.Value

// SetTestIDAttribute sets the test id attribute selectors use: an engine
// of its name (data-pw=x) and the hints for getByTestId. "" is
// data-testid.
func SetTestIDAttribute(name string) { testIDAttribute.Store(name) }

// testIDSetting is the statement giving the page helper a test id
// attribute other than data-testid.
func testIDSetting() string {
	name, _ := testIDAttribute.Load().(string)
	if name == "" || name == "data-testid" {
		return ""
	}
	return "window.__bhTestIdAttribute = " + jsString(name) + ";"
}

// missingHelper is what a document without the helper answers.
const missingHelper = `"__bh_missing__"`

// Evaluate runs JavaScript in the page (an expression, or a function given
// arg as JSON) and returns its JSON value.
func (p *Page) Evaluate(ctx context.Context, expr string, arg json.RawMessage) (json.RawMessage, error) {
	if len(arg) > 0 {
		expr = "(" + expr + ")(" + string(arg) + ")"
	}
	return p.evalRaw(ctx, expr)
}

// URL is the page's address.
func (p *Page) URL(ctx context.Context) (string, error) {
	var u string
	raw, err := p.evalRaw(ctx, "location.href")
	if err == nil {
		err = json.Unmarshal(raw, &u)
	}
	return u, err
}

// Title is the document's title.
func (p *Page) Title(ctx context.Context) (string, error) {
	var t string
	raw, err := p.evalRaw(ctx, "document.title")
	if err == nil {
		err = json.Unmarshal(raw, &t)
	}
	return t, err
}

// NavigateTimeout is how long a navigation waits for the page's load
// event by default.
const NavigateTimeout = 15 * time.Second

// Navigate loads url and waits for its load event (NavigateTimeout); it
// returns the main response's status (0 when there was none, as for
// about:blank).
func (p *Page) Navigate(ctx context.Context, url string) (int64, error) {
	st, _, err := p.NavigateWithin(ctx, url, 0)
	return st, err
}

// NavigateWithin is Navigate waiting up to timeout (NavigateTimeout when
// 0, and less than what is left of ctx) for the load event. When the
// document came but a resource of it still loads at the timeout, loading
// is stopped and the page is kept, with a note saying so; when no
// document came, loading is stopped and it answers TIMEOUT. Either way
// the tab is usable after.
func (p *Page) NavigateWithin(ctx context.Context, url string, timeout time.Duration) (int64, string, error) {
	if err := checkURL(url); err != nil {
		return 0, "", err
	}
	if err := p.usable(); err != nil {
		return 0, "", err
	}
	// It replaces any navigation the page started: none is waited for.
	ctx = withoutSettle(ctx)
	if timeout <= 0 {
		timeout = NavigateTimeout
	}
	if dl, ok := ctx.Deadline(); ok {
		// Leave the call time to stop loading and say what happened.
		timeout = max(100*time.Millisecond, min(timeout, time.Until(dl)-4*time.Second))
	}
	nctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	began := time.Now()
	var resp *network.Response
	opened, err := p.runUntilDialog(nctx, chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		r, err := chromedp.NavigateResponse(url)(ctx, t)
		resp = r
		return err
	}))
	if err != nil && nctx.Err() != nil && ctx.Err() == nil {
		return p.loadTimedOut(ctx, url, timeout, began)
	}
	st, err := p.navigated(ctx, url, began, resp, opened, err)
	return st, "", err
}

// loadTimedOut stops a navigation that did not load within timeout and
// says how far it came. The page itself says it (the network records may
// lag behind): whether its document is the new one, with what status, and
// which of its resources still load.
func (p *Page) loadTimedOut(ctx context.Context, url string, timeout time.Duration, began time.Time) (int64, string, error) {
	var state struct {
		Origin  float64  `json:"origin"`
		Status  int64    `json:"status"`
		Pending []string `json:"pending"`
	}
	look := func(d time.Duration) bool {
		lctx, cancel := context.WithTimeout(ctx, d)
		defer cancel()
		raw, err := p.evalRaw(lctx, pageLoadState)
		return err == nil && json.Unmarshal(raw, &state) == nil
	}
	// Before stopping, which cancels what still loads; a tab whose
	// navigation has not been answered does not answer either.
	looked := look(time.Second)
	sctx, cancel := context.WithTimeout(ctx, time.Second)
	defer cancel()
	_ = p.run(sctx, chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		_, err := cdp.Call(ctx, t, page.StopLoading, cdp.Empty{})
		return err
	}))
	if !looked {
		look(time.Second)
		// What the stop cancelled, as the tab's records say (they may
		// come a moment later).
		state.Pending = nil
		for end := time.Now().Add(time.Second); state.Origin >= float64(began.UnixMilli()-1) && len(state.Pending) == 0 && time.Now().Before(end) && ctx.Err() == nil; time.Sleep(pollInterval) {
			for _, r := range p.Requests() {
				if !r.start.Before(began) && r.Failed == "canceled" && r.ResourceType != "Document" && len(state.Pending) < 3 {
					state.Pending = append(state.Pending, r.URL)
				}
			}
		}
	}
	// The new document's time origin is when its navigation began.
	if state.Origin >= float64(began.UnixMilli()-1) {
		note := fmt.Sprintf("the page's load event had not come after %v: loading was stopped, and the page is used as it is", timeout)
		if len(state.Pending) > 0 {
			note += fmt.Sprintf(" (still loading: %s)", strings.Join(state.Pending, ", "))
		}
		return state.Status, note, nil
	}
	u, _ := p.URL(ctx)
	return 0, "", tool.Errorf(tool.CodeTimeout, "could not open %s: no answer within %v; loading was stopped and the tab still shows %s (is the server stuck? a longer timeout waits longer)", url, timeout, u)
}

// pageLoadState is the document's time origin, its status, and up to 3
// resources it names that have not loaded (no resource timing entry yet).
const pageLoadState = `(() => {
  const nav = performance.getEntriesByType('navigation')[0];
  const done = new Set(performance.getEntriesByType('resource').map((e) => e.name));
  const named = [...document.querySelectorAll('img[src], script[src], link[rel=stylesheet][href], iframe[src], video[src], audio[src]')]
    .map((e) => e.currentSrc || e.src || e.href).filter((u) => u && /^https?:/.test(u) && !done.has(u));
  return { origin: performance.timeOrigin, status: nav ? nav.responseStatus || 0 : 0, pending: [...new Set(named)].slice(0, 3) };
})()`

// navigated is the outcome of a navigation that ended.
func (p *Page) navigated(ctx context.Context, url string, began time.Time, resp *network.Response, opened bool, err error) (int64, error) {
	if err != nil {
		code := netError.FindString(err.Error())
		st, known := p.documentStatus(began)
		switch {
		case code == "net::ERR_HTTP_RESPONSE_CODE_FAILURE" && known:
			// An error status with an empty body: Chromium shows its own
			// error page. It is the server's answer, as a 404 page with a
			// body is: the status says it.
			return st, nil
		case code == "net::ERR_HTTP_RESPONSE_CODE_FAILURE":
			return 0, tool.Errorf(tool.CodeToolError, "could not open %s (%s): the server answered an HTTP error status with an empty body", url, code)
		case code == "net::ERR_ABORTED" && known && (st == 204 || st == 205):
			u, _ := p.URL(ctx)
			return 0, tool.Errorf(tool.CodeToolError, "could not open %s: the server answered %d (no content), which a browser does not display; the tab stays on %s", url, st, u)
		}
		return 0, navError(url, err)
	}
	if opened { // the new page opened a dialog while loading
		return 0, nil
	}
	if resp == nil {
		return 0, nil
	}
	return resp.Status, nil
}

// documentStatus is the status of the last document request answered
// since a navigation began (after its redirects), from the tab's network
// records, and whether there is one.
func (p *Page) documentStatus(since time.Time) (int64, bool) {
	reqs := p.Requests()
	for i := len(reqs) - 1; i >= 0; i-- {
		if r := reqs[i]; r.ResourceType == "Document" && !r.start.Before(since) && r.Status != 0 {
			return r.Status, true
		}
	}
	return 0, false
}

// History moves back (-1) or forward (+1), or reloads (0), and waits up
// to timeout for the new document to be complete. (The page is marked, and
// the wait ends when a document without the mark is complete: a page
// restored from the back-forward cache fires no load event.)
func (p *Page) History(ctx context.Context, delta int, timeout time.Duration) error {
	if timeout <= 0 {
		timeout = 10 * time.Second
	}
	js := map[int]string{-1: "history.back()", 1: "history.forward()", 0: "location.reload()"}[max(-1, min(1, delta))]
	// A mark of this call's own: a page restored from the cache may hold
	// the mark of an earlier call.
	mark := jsString(strconv.FormatInt(time.Now().UnixNano(), 36))
	if _, err := p.evalRaw(ctx, "window.__bhMark = "+mark+"; setTimeout(() => "+js+", 0); true"); err != nil {
		return err
	}
	what := map[int]string{-1: "go back", 1: "go forward", 0: "reload"}[max(-1, min(1, delta))]
	deadline := time.Now().Add(timeout)
	for {
		raw, err := p.evalRaw(ctx, "window.__bhMark !== "+mark+" && document.readyState === 'complete'")
		if err == nil && string(raw) == "true" {
			return nil
		}
		if time.Now().After(deadline) {
			if delta != 0 {
				return tool.Errorf(tool.CodeToolError, "could not %s within %v: the tab has no page that way in its history, or it did not load", what, timeout)
			}
			return tool.Errorf(tool.CodeTimeout, "the page did not reload within %v", timeout)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(pollInterval):
		}
	}
}

// Probe is what the page says of a selector's first element.
type Probe struct {
	Count    int    `json:"count"`
	Matched  string `json:"matched,omitempty"`
	Visible  bool   `json:"visible"`
	Enabled  bool   `json:"enabled"`
	Editable bool   `json:"editable"`
	// Animating says a CSS animation or transition runs on the element.
	Animating bool `json:"animating"`
	// Kind is the element's tag (and input type), for messages.
	Kind string `json:"kind,omitempty"`
	// Element is the element acted on as a user would name it: its kind
	// and accessible name (button "Sign in").
	Element string `json:"element,omitempty"`
	// Ref says why a snapshot ref matched nothing: "unknown" (no snapshot
	// of this document gave it) or "gone" (its element was removed).
	Ref string `json:"ref,omitempty"`
	// Locator is the element's generated locator when the selector was a
	// snapshot ref or matched several elements (see GenerateLocator).
	Locator *Locator `json:"locator,omitempty"`
	X       float64  `json:"x"`
	Y       float64  `json:"y"`
	W       float64  `json:"w"`
	H       float64  `json:"h"`
}

// FindOptions say what to wait for.
type FindOptions struct {
	// Timeout bounds the wait: DefaultTimeout when 0; NoTimeout waits as
	// long as the call may. Either way the wait ends a moment before the
	// call's own deadline, to say what it found.
	Timeout time.Duration
	// State is visible (the default), attached, hidden or detached.
	State string
	// Heal tries data-testid, id, aria-label, name and visible text when
	// the selector matches nothing.
	Heal bool
	// Actionable also waits for the element to be enabled and to stand
	// still (two looks with the same box), and scrolls it into view.
	Actionable bool
	// Field makes a <label> stand for its form field (to type into).
	Field bool
	// Arg names the argument the selector came in, for errors
	// ("selector" when empty).
	Arg string
	// cut says Timeout was shortened to end before the call does.
	cut bool
	// untilCall says the wait was asked without a bound (timeout 0): the
	// call's deadline cuts it.
	untilCall bool
}

// Candidate is an element offered when a selector matched nothing.
type Candidate struct {
	Selector string `json:"selector"`
	Tag      string `json:"tag"`
	Role     string `json:"role,omitempty"`
	Name     string `json:"name,omitempty"`
	// Unrelated says nothing on the page looked like the selector: the
	// candidate is one of the elements a user could act on.
	Unrelated bool `json:"unrelated,omitempty"`
}

// Find waits until the selector's first element is in the state asked
// for. On timeout it answers ELEMENT_NOT_FOUND naming the selector, what
// it found, and the closest candidates.
func (p *Page) Find(ctx context.Context, sel string, o FindOptions) (*Probe, error) {
	if strings.TrimSpace(sel) == "" {
		return nil, tool.Errorf(tool.CodeInvalidArgs, "argument %q: empty; give a selector (Playwright's), as #id, text=Sign in, role=button[name=\"Save\"], data-testid=x, xpath=... or a ref from browser_snapshot (e12)", cmp.Or(o.Arg, "selector"))
	}
	o.untilCall = o.Timeout == NoTimeout
	if o.State == "" {
		o.State = "visible"
	}
	// When the call ends first, stop looking in time to say what was found.
	o.Timeout, o.cut = tool.WithinCall(ctx, Bound(o.Timeout, DefaultTimeout))
	o.Timeout = o.Timeout.Round(time.Millisecond)
	deadline := time.Now().Add(o.Timeout)
	call := fmt.Sprintf("probe(%s, {heal: %v, scroll: %v, field: %v})", jsString(sel), o.Heal, o.Actionable, o.Field)
	var last Probe
	var prev *Probe
	for {
		var pr Probe
		if err := p.helper(ctx, call, &pr); err != nil {
			return nil, InvalidSelector(o.Arg, sel, err)
		}
		last = pr
		if pr.Ref != "" && (o.State == "visible" || o.State == "attached") {
			// A ref is given by browser_snapshot only: waiting brings none.
			return nil, p.badRef(ctx, sel, pr.Ref)
		}
		if prev == nil && pr.Count == 0 && (o.State == "visible" || o.State == "attached") && p.blank(ctx) {
			// No page was opened: nothing will appear by waiting.
			return nil, tool.Errorf(tool.CodeElementNotFound, "selector %q: the tab is blank (about:blank), no page was opened in it: open one with browser_navigate first (a browser just started, or started again after its Igor ended, shows about:blank)", sel)
		}
		done := false
		switch o.State {
		case "attached":
			done = pr.Count > 0
		case "detached":
			done = pr.Count == 0
		case "hidden":
			done = pr.Count == 0 || !pr.Visible
		default:
			done = pr.Count > 0 && pr.Visible
			if done && o.Actionable {
				// Still: no animation running on it, or the same box twice.
				still := !pr.Animating || prev != nil && prev.X == pr.X && prev.Y == pr.Y && prev.W == pr.W && prev.H == pr.H
				done = pr.Enabled && still
			}
		}
		if done {
			return &pr, nil
		}
		cp := pr
		prev = &cp
		if time.Now().After(deadline) {
			break
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(pollInterval):
		}
	}
	return nil, p.notFound(ctx, sel, o, last)
}

// blank says the tab shows an empty about:blank: no page was opened.
func (p *Page) blank(ctx context.Context) bool {
	raw, err := p.evalRaw(ctx, "location.href === 'about:blank' && !(document.body && document.body.childElementCount)")
	return err == nil && string(raw) == "true"
}

// errBadSelector marks the error of a selector the page helper could not
// read (its SelectorError), so a caller names the argument it came in.
type errBadSelector struct{ msg string }

func (e *errBadSelector) Error() string { return e.msg }

// selectorError turns the helper's SelectorError into errBadSelector: its
// message without the JavaScript stack (lines of <anonymous> positions a
// user cannot act on) or the error's class name. Other errors pass.
func selectorError(err error) error {
	te, ok := err.(*tool.Error)
	if !ok {
		return err
	}
	const mark = "the page's JavaScript threw: SelectorError: "
	i := strings.Index(te.Message, mark)
	if i < 0 {
		return err
	}
	msg := te.Message[i+len(mark):]
	if j := strings.Index(msg, "\n    at "); j >= 0 {
		msg = msg[:j]
	}
	return &errBadSelector{msg}
}

// InvalidSelector is the INVALID_ARGS answer for argument arg ("selector"
// when empty) holding sel, when err says the selector cannot be read;
// other errors pass as they are.
func InvalidSelector(arg, sel string, err error) error {
	bad, ok := err.(*errBadSelector)
	if !ok {
		return err
	}
	return tool.Errorf(tool.CodeInvalidArgs, "argument %q: %q is not a selector BarrHawk reads: %s (the forms are Playwright's: see the README's selector table)", cmp.Or(arg, "selector"), sel, bad.msg)
}

// badRef explains a snapshot ref that finds no element: refs are given
// by browser_snapshot for one document and name one element.
func (p *Page) badRef(ctx context.Context, sel, state string) error {
	u, _ := p.URL(ctx)
	ref := strings.TrimPrefix(strings.TrimSpace(sel), "ref=")
	if state == "gone" {
		return tool.Errorf(tool.CodeElementNotFound, "ref %s named an element that is no longer on %s (removed or drawn again by the page's scripts); take a new browser_snapshot and use a ref from it", ref, u)
	}
	return tool.Errorf(tool.CodeElementNotFound, "ref %s is not a ref of %s: refs come from browser_snapshot and last until the page navigates or reloads; take browser_snapshot of this page and use a ref from it", ref, u)
}

// notFound explains a wait that timed out.
func (p *Page) notFound(ctx context.Context, sel string, o FindOptions, last Probe) error {
	var why string
	switch {
	case o.State == "detached" || o.State == "hidden":
		return tool.Errorf(tool.CodeTimeout, "selector %q: still %s after %v (wanted %s)", sel, map[bool]string{true: "visible", false: "attached"}[last.Visible], o.Timeout, o.State)
	case last.Count == 0:
		why = "matched no element"
	case !last.Visible:
		why = fmt.Sprintf("matched %d element(s), but the first is not visible", last.Count)
	case !last.Enabled:
		why = fmt.Sprintf("matched %d element(s), but the first is disabled", last.Count)
	default:
		why = "matched an element that kept moving"
	}
	var cands []Candidate
	_ = p.helper(ctx, fmt.Sprintf("candidates(%s, 5)", jsString(sel)), &cands)
	var b strings.Builder
	for i, c := range cands {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(c.Selector)
		if c.Name != "" {
			fmt.Fprintf(&b, " (%s %q)", c.Tag, c.Name)
		} else {
			fmt.Fprintf(&b, " (%s)", c.Tag)
		}
	}
	u, _ := p.URL(ctx)
	msg := fmt.Sprintf("selector %q %s within %v on %s", sel, why, o.Timeout, u)
	switch {
	case o.untilCall:
		msg += " (timeout 0 waits until a moment before the call's own timeout, tools.defaultTimeout)"
	case o.cut:
		msg += " (the wait was cut to end before the call's own timeout, tools.defaultTimeout)"
	}
	switch {
	case b.Len() > 0 && cands[0].Unrelated:
		msg += "; no element looks like it; elements to act on: " + b.String() + " (browser_snapshot lists them all, with refs)"
	case b.Len() > 0:
		msg += "; closest elements: " + b.String()
	default:
		msg += "; the page has no visible element to act on (browser_snapshot shows what it has)"
	}
	if !o.Heal && last.Count == 0 {
		msg += "; browser_click, browser_type and browser_hover take selfHeal: true to try data-testid, id, aria-label and text"
	}
	return tool.Errorf(tool.CodeElementNotFound, "%s", msg)
}

// jsString quotes s for JavaScript.
func jsString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// ClickOptions say how to click.
type ClickOptions struct {
	FindOptions
	Button string // left (default), right, middle
	Count  int    // 1 (default) or 2 for a double click
}

// Click waits for the element to be actionable and clicks its centre with
// real mouse events. It returns the probe (Matched says which selector
// matched, after healing).
func (p *Page) Click(ctx context.Context, sel string, o ClickOptions) (*Probe, error) {
	o.Actionable = true
	pr, err := p.Find(ctx, sel, o.FindOptions)
	if err != nil {
		return nil, err
	}
	return pr, p.ClickXY(ctx, pr.X, pr.Y, o.Button, o.Count)
}

// ClickXY clicks at viewport coordinates.
func (p *Page) ClickXY(ctx context.Context, x, y float64, button string, count int) error {
	if button == "" {
		button = "left"
	}
	if count <= 0 {
		count = 1
	}
	p.drawCursor(ctx, x, y)
	return describe("click", p.input(ctx, chromedp.MouseClickXY(x, y, chromedp.Button(button), chromedp.ClickCount(count))))
}

// MouseMove moves the mouse to x, y.
func (p *Page) MouseMove(ctx context.Context, x, y float64) error {
	return p.MouseMoveSteps(ctx, x, y, 1)
}

// MouseMoveSteps moves the mouse from where it was to x, y in steps moves.
func (p *Page) MouseMoveSteps(ctx context.Context, x, y float64, steps int) error {
	if steps < 1 {
		steps = 1
	}
	p.mu.Lock()
	fx, fy := p.mouseX, p.mouseY
	p.mu.Unlock()
	p.drawCursor(ctx, x, y)
	var moves []chromedp.Action[chromedp.Void]
	for i := 1; i <= steps; i++ {
		f := float64(i) / float64(steps)
		moves = append(moves, chromedp.MouseEvent(input.DispatchMouseEventTypeMouseMoved, fx+(x-fx)*f, fy+(y-fy)*f))
	}
	if err := p.run(ctx, moves...); err != nil {
		return describe("move the mouse", err)
	}
	p.mu.Lock()
	p.mouseX, p.mouseY = x, y
	p.mu.Unlock()
	return nil
}

// Point is a position inside an element, from its top-left corner, in CSS
// pixels; nil means the element's centre.
type Point struct {
	X float64 `json:"x"`
	Y float64 `json:"y"`
}

// at is the viewport point of pos inside the probed element (its centre
// for nil).
func (pr *Probe) at(pos *Point) (float64, float64) {
	if pos == nil {
		return pr.X, pr.Y
	}
	return pr.X - pr.W/2 + pos.X, pr.Y - pr.H/2 + pos.Y
}

// Hover waits for the element and moves the mouse over it (its centre, or
// pos inside it).
func (p *Page) Hover(ctx context.Context, sel string, pos *Point, o FindOptions) (*Probe, error) {
	o.Actionable = true
	pr, err := p.Find(ctx, sel, o)
	if err != nil {
		return nil, err
	}
	x, y := pr.at(pos)
	return pr, p.MouseMove(ctx, x, y)
}

// DragElements drags the source element onto the target with the mouse
// (an HTML5 drag and drop too), from and to their centres or the given
// positions inside them. Both must fit in the viewport at once.
func (p *Page) DragElements(ctx context.Context, source, target string, from, to *Point, o FindOptions) error {
	o.Actionable = true
	o.Arg = "source"
	first, err := p.Find(ctx, source, o)
	if err != nil {
		return err
	}
	o.Arg = "target"
	dst, err := p.Find(ctx, target, o)
	if err != nil {
		return err
	}
	// Scrolling the target into view may have moved the source out of it:
	// scroll the window so that both show when they fit together, and look
	// at both again.
	var boxes struct {
		Src, Dst Probe
		W, H     float64
	}
	js := fmt.Sprintf(`(() => { const a = window.__bh.pick(%s), b = window.__bh.pick(%s);
		if (!a || !b) return null;
		let ra = a.getBoundingClientRect(), rb = b.getBoundingClientRect();
		const top = Math.min(ra.top, rb.top), bottom = Math.max(ra.bottom, rb.bottom), left = Math.min(ra.left, rb.left), right = Math.max(ra.right, rb.right);
		let dx = 0, dy = 0;
		if ((top < 0 || bottom > innerHeight) && bottom - top <= innerHeight) dy = top - (innerHeight - (bottom - top)) / 2;
		if ((left < 0 || right > innerWidth) && right - left <= innerWidth) dx = left - (innerWidth - (right - left)) / 2;
		if (dx || dy) { window.scrollBy({left: dx, top: dy, behavior: 'instant'}); ra = a.getBoundingClientRect(); rb = b.getBoundingClientRect(); }
		const box = (r) => ({count: 1, x: r.left + r.width / 2, y: r.top + r.height / 2, w: r.width, h: r.height});
		return {Src: box(ra), Dst: box(rb), W: innerWidth, H: innerHeight}; })()`, jsString(first.Matched), jsString(dst.Matched))
	raw, err := p.evalRaw(ctx, js)
	if err != nil {
		return err
	}
	if string(raw) == "null" || json.Unmarshal(raw, &boxes) != nil {
		return tool.Errorf(tool.CodeElementNotFound, "%q or %q matched no element any more once scrolled to", source, target)
	}
	src := boxes.Src
	fx, fy := src.at(from)
	tx, ty := boxes.Dst.at(to)
	if fx < 0 || fy < 0 || tx < 0 || ty < 0 || fx > boxes.W || tx > boxes.W || fy > boxes.H || ty > boxes.H {
		return tool.Errorf(tool.CodeToolError, "%q and %q do not fit in the %gx%g viewport at once (a drag does not scroll): make the viewport larger with browser_resize, or drag in two steps with browser_mouse_drag", source, target, boxes.W, boxes.H)
	}
	p.mu.Lock()
	p.mouseX, p.mouseY = tx, ty
	p.mu.Unlock()
	return p.Drag(ctx, fx, fy, tx, ty, 10)
}

// Drag presses at from, moves to to in steps, and releases; a drag the
// page starts (HTML5 drag and drop) is carried through to its drop.
func (p *Page) Drag(ctx context.Context, fx, fy, tx, ty float64, steps int) error {
	if steps <= 0 {
		steps = 10
	}
	p.drawCursor(ctx, tx, ty)
	return describe("drag", p.input(ctx, chromedp.DragAndDropXY(fx, fy, tx, ty, steps)))
}

// wheelParams are Input.dispatchMouseEvent's for a wheel event, with both
// deltas always sent: the protocol requires them, and the generated type
// omits a zero one.
type wheelParams struct {
	Type   string  `json:"type"`
	X      float64 `json:"x"`
	Y      float64 `json:"y"`
	DeltaX float64 `json:"deltaX"`
	DeltaY float64 `json:"deltaY"`
}

var dispatchWheel = cdp.Command[wheelParams, cdp.Empty]{Method: input.CommandDispatchMouseEvent}

// Wheel turns the mouse wheel at the mouse's position.
func (p *Page) Wheel(ctx context.Context, dx, dy float64) error {
	p.mu.Lock()
	x, y := p.mouseX, p.mouseY
	p.mu.Unlock()
	return describe("scroll", p.run(ctx, chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		_, err := chromedp.Call(ctx, dispatchWheel, wheelParams{Type: "mouseWheel", X: x, Y: y, DeltaX: dx, DeltaY: dy})
		return err
	})))
}

// Type focuses the element (a label stands for its field; the field is
// cleared first when clear is set), types text as keyboard input, and
// presses Enter when enter is set.
func (p *Page) Type(ctx context.Context, sel, text string, clear, enter bool, o FindOptions) (*Probe, error) {
	o.Actionable, o.Field = true, true
	pr, err := p.Find(ctx, sel, o)
	if err != nil {
		return nil, err
	}
	if !pr.Editable {
		return nil, tool.Errorf(tool.CodeInvalidArgs, "selector %q matched a <%s>, which takes no typed text: type into a text input, a textarea or a contenteditable element; choose a select's option with browser_select_option, tick a checkbox or radio with browser_click, pick files with browser_file_upload", sel, pr.Kind)
	}
	focus := fmt.Sprintf(`(() => { let el = window.__bh.pick(%s); if (el.tagName === 'LABEL' && el.control) el = el.control; el.focus(); if (%v) { if ('value' in el) { el.value = ''; el.dispatchEvent(new Event('input', {bubbles: true})); } else { el.textContent = ''; } } return true; })()`, jsString(pr.Matched), clear)
	if _, err := p.evalRaw(ctx, focus); err != nil {
		return nil, err
	}
	steps := []chromedp.Action[chromedp.Void]{chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		_, err := chromedp.Call(ctx, input.InsertText, input.InsertTextParams{Text: text})
		return err
	})}
	if enter {
		steps = append(steps, chromedp.KeyEvent(kb.Enter))
	}
	return pr, describe("type", p.input(ctx, steps...))
}

// keyNames maps key names (Enter, Tab, ArrowDown, ...) to the runes kb
// uses for them.
var keyNames = func() map[string]string {
	m := map[string]string{}
	for r, k := range kb.Keys {
		if k.Key != "" && len([]rune(k.Key)) > 1 {
			m[strings.ToLower(k.Key)] = string(r)
		}
	}
	m["esc"], m["return"], m["space"] = m["escape"], m["enter"], " "
	return m
}()

// PressKey presses a key by name (Enter, Tab, Escape, ArrowDown, F5, a) or
// a combination with modifiers (Control+a, Shift+Tab).
func (p *Page) PressKey(ctx context.Context, key string) error {
	parts := strings.Split(key, "+")
	name := parts[len(parts)-1]
	if name == "" && len(parts) > 1 { // "Control++"
		name = "+"
	}
	var mods []chromedp.Modifier
	for _, m := range parts[:len(parts)-1] {
		switch strings.ToLower(m) {
		case "control", "ctrl":
			mods = append(mods, chromedp.ModifierCtrl)
		case "shift":
			mods = append(mods, chromedp.ModifierShift)
		case "alt":
			mods = append(mods, chromedp.ModifierAlt)
		case "meta", "cmd", "command":
			mods = append(mods, chromedp.ModifierMeta)
		default:
			return tool.Errorf(tool.CodeInvalidArgs, "argument \"key\": unknown modifier %q; use Control, Shift, Alt or Meta", m)
		}
	}
	keys := name
	if len([]rune(name)) > 1 {
		k, ok := keyNames[strings.ToLower(name)]
		if !ok {
			return tool.Errorf(tool.CodeInvalidArgs, "argument \"key\": unknown key %q; use a name such as Enter, Tab, Escape, Backspace, ArrowDown, PageDown, F5, or one character", name)
		}
		keys = k
	}
	return describe("press "+key, p.input(ctx, chromedp.KeyEvent(keys, chromedp.KeyModifiers(mods...))))
}

// Text is the visible text of the element (the whole page for "").
func (p *Page) Text(ctx context.Context, sel string, o FindOptions) (string, error) {
	if sel == "" {
		raw, err := p.evalRaw(ctx, "document.body ? document.body.innerText : ''")
		if err != nil {
			return "", err
		}
		var s string
		return s, json.Unmarshal(raw, &s)
	}
	o.State = "attached"
	pr, err := p.Find(ctx, sel, o)
	if err != nil {
		return "", err
	}
	var s string
	err = p.helper(ctx, fmt.Sprintf("text(window.__bh.pick(%s))", jsString(pr.Matched)), &s)
	return s, err
}

// Attribute returns an attribute of the element (nil when it has none).
func (p *Page) Attribute(ctx context.Context, sel, name string, o FindOptions) (*string, error) {
	o.State = "attached"
	pr, err := p.Find(ctx, sel, o)
	if err != nil {
		return nil, err
	}
	var v *string
	err = p.helper(ctx, fmt.Sprintf("pick(%s).getAttribute(%s)", jsString(pr.Matched), jsString(name)), &v)
	return v, err
}

// Count is how many elements match sel now (no waiting).
func (p *Page) Count(ctx context.Context, sel string) (int, error) {
	var pr Probe
	if err := p.helper(ctx, fmt.Sprintf("probe(%s, {})", jsString(sel)), &pr); err != nil {
		return 0, InvalidSelector("", sel, err)
	}
	return pr.Count, nil
}

// Element describes a matching element for browser_get_elements.
type Element struct {
	Tag     string            `json:"tag"`
	Role    string            `json:"role,omitempty"`
	Name    string            `json:"name,omitempty"`
	Text    string            `json:"text,omitempty"`
	Visible bool              `json:"visible"`
	Attrs   map[string]string `json:"attributes,omitempty"`
}

// Elements lists up to limit elements matching sel.
func (p *Page) Elements(ctx context.Context, sel string, limit int) ([]Element, int, error) {
	var out struct {
		Total int       `json:"total"`
		Items []Element `json:"items"`
	}
	js := fmt.Sprintf(`(() => { const els = window.__bh.resolve(%s); return { total: els.length, items: els.slice(0, %d).map((el) => {
		const attrs = {}; for (const a of el.attributes) if (['id','class','name','type','href','src','value','data-testid','aria-label','placeholder','role'].includes(a.name)) attrs[a.name] = a.value.slice(0, 200);
		return { tag: el.tagName.toLowerCase(), role: window.__bh.role(el) || undefined, name: window.__bh.name(el).slice(0, 120) || undefined, text: window.__bh.text(el).slice(0, 200) || undefined, visible: window.__bh.visible(el), attributes: attrs };
	}) }; })()`, jsString(sel), limit)
	if err := p.helper(ctx, "text", nil); err != nil { // installs the helper
		return nil, 0, err
	}
	raw, err := p.evalRaw(ctx, js)
	if err != nil {
		return nil, 0, InvalidSelector("", sel, selectorError(err))
	}
	if err := json.Unmarshal(raw, &out); err != nil {
		return nil, 0, tool.Errorf(tool.CodeInternal, "elements: %v", err)
	}
	return out.Items, out.Total, nil
}

// Snapshot is the accessibility snapshot of the page (or of root's
// subtree), at most maxBytes long.
type Snapshot struct {
	Text     string `json:"text"`
	Cut      bool   `json:"cut"`
	Elements int    `json:"elements"`
	Error    string `json:"error,omitempty"`
}

// Snapshot takes the accessibility snapshot; its refs (e12) are selectors.
func (p *Page) Snapshot(ctx context.Context, root string, includeHidden bool, maxBytes int) (*Snapshot, error) {
	rootArg := "null"
	if root != "" {
		rootArg = jsString(root)
	}
	var s Snapshot
	if err := p.helper(ctx, fmt.Sprintf("snapshot(%s, %v, %d)", rootArg, includeHidden, maxBytes), &s); err != nil {
		return nil, InvalidSelector("root", root, err)
	}
	if s.Error != "" {
		return nil, tool.Errorf(tool.CodeElementNotFound, "argument \"root\": %s", s.Error)
	}
	return &s, nil
}

// Screenshot captures the viewport as PNG, or the whole page, or one
// element's box.
func (p *Page) Screenshot(ctx context.Context, fullPage bool, sel string, o FindOptions) ([]byte, error) {
	if sel != "" {
		o.Actionable = false
		pr, err := p.Find(ctx, sel, o)
		if err != nil {
			return nil, err
		}
		var r struct{ X, Y, W, H float64 }
		raw, err := p.evalRaw(ctx, fmt.Sprintf(`(() => { const b = window.__bh.pick(%s).getBoundingClientRect(); return {X: b.left + scrollX, Y: b.top + scrollY, W: b.width, H: b.height}; })()`, jsString(pr.Matched)))
		if err != nil {
			return nil, err
		}
		if err := json.Unmarshal(raw, &r); err != nil {
			return nil, tool.Errorf(tool.CodeInternal, "element box: %v", err)
		}
		return p.capture(ctx, &page.Viewport{X: r.X, Y: r.Y, Width: r.W, Height: r.H, Scale: 1}, true)
	}
	if fullPage {
		var buf []byte
		err := p.run(ctx, chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
			b, err := chromedp.FullScreenshot(100)(ctx, t)
			buf = b
			return err
		}))
		return buf, screenshotError(ctx, p, err)
	}
	return p.capture(ctx, nil, false)
}

func (p *Page) capture(ctx context.Context, clip *page.Viewport, beyond bool) ([]byte, error) {
	var buf []byte
	err := p.run(ctx, chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		res, err := chromedp.Call(ctx, page.CaptureScreenshot, page.CaptureScreenshotParams{Format: page.CaptureScreenshotFormatPng, Clip: clip, CaptureBeyondViewport: &beyond})
		if err != nil {
			return err
		}
		buf = res.Data
		return nil
	}))
	return buf, screenshotError(ctx, p, err)
}

// screenshotError explains a capture that failed; Chromium cannot capture
// its own error page (a navigation that failed).
func screenshotError(ctx context.Context, p *Page, err error) error {
	if err != nil && strings.Contains(err.Error(), "Page is too large") {
		var h int
		if raw, e := p.evalRaw(ctx, "document.documentElement.scrollHeight"); e == nil {
			_ = json.Unmarshal(raw, &h)
		}
		return tool.Errorf(tool.CodeToolError, "the page is %d px tall, more than Chromium captures in one image: take the viewport (fullPage false) after browser_scroll, or one element with selector", h)
	}
	if err != nil && strings.Contains(err.Error(), "Not attached to an active page") {
		if raw, e := p.evalRaw(ctx, "location.href"); e == nil && strings.Contains(string(raw), "chrome-error://") {
			return tool.Errorf(tool.CodeToolError, "the tab shows Chromium's error page (its last navigation failed), which cannot be captured; navigate to a page that loads, or go back with browser_navigate_back")
		}
	}
	return describe("screenshot", err)
}
