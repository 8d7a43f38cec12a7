package browser

import (
	"context"
	"encoding/json"
	"log"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
	"unsafe"

	"github.com/chromedp/cdproto"
	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/cdproto/target"
	"github.com/chromedp/chromedp"
)

// Popups: a page a tab opens itself (window.open, a target=_blank link, a
// form with a target) becomes a tab of the opener's session with
// everything the session gives its tabs (routes, offline state, media,
// device, locale, time zone, geolocation), before it sends its first
// request, as Playwright gives popups its context's routes and emulation.
//
// The browser auto-attaches every new page paused before its first
// navigation (Target.setAutoAttach at the browser level, waiting for the
// debugger, flattened). For a page with an opener among our tabs, a
// chromedp context attaches to it beside that paused session, the
// session's set-up is applied through it, and then the paused session is
// detached, which lets the page go on. Pages without an opener (tabs the
// tools open themselves) are let go at once. The opener's tab counts the
// popups it opened that are still being set up (it sees their
// Target.targetCreated in its own event order, before the action that
// opened them answers), so that the action can wait for them
// (TakePopups).

// popupWait bounds how long an action waits for the popups it opened to
// be set up.
const popupWait = 10 * time.Second

// Popup is a page a tab opened, now a tab of its session.
type Popup struct {
	// Tab is its index among the session's tabs (browser_tabs).
	Tab int `json:"tab"`
	// URL is the address it was opened with.
	URL string `json:"url"`
	// Var is its variable in the session's exported test (popup1, ...).
	Var string `json:"var"`
}

// watchPopups makes the browser pause new pages until they are set up,
// and sets up the popups of our tabs (see above); first is a tab to send
// the command through.
func (b *Browser) watchPopups(ctx context.Context, first *Page) error {
	c := chromedp.FromContext(b.root)
	attached, stopAttached := c.Browser.Subscribe(cdproto.EventTargetAttachedToTarget)
	destroyed, stopDestroyed := c.Browser.Subscribe(cdproto.EventTargetTargetDestroyed)
	go func() {
		defer stopAttached()
		defer stopDestroyed()
		for {
			select {
			case <-b.root.Done():
				return
			case raw, ok := <-attached:
				if !ok {
					return
				}
				var ev target.EventAttachedToTarget
				if err := json.Unmarshal(raw, &ev); err != nil || ev.TargetInfo == nil {
					continue
				}
				go b.onAttached(&ev)
			case raw, ok := <-destroyed:
				if !ok {
					return
				}
				var ev target.EventTargetDestroyed
				if json.Unmarshal(raw, &ev) == nil {
					b.forgetTab(ev.TargetID)
				}
			}
		}
	}()
	// Service workers and shared workers are attached too, only to be let
	// go at once: Chromium pauses them at start for a browser-level
	// auto-attach that waits, whatever its filter.
	flatten := true
	err := first.cdpCall(ctx, func(ctx context.Context) error {
		_, err := chromedp.CallBrowser(ctx, target.SetAutoAttach, target.SetAutoAttachParams{
			AutoAttach: true, WaitForDebuggerOnStart: true, Flatten: &flatten,
			Filter: target.Filter{{Type: "page"}, {Type: "service_worker"}, {Type: "shared_worker"}, {Exclude: true}},
		})
		return err
	})
	return describe("watch for popups", err)
}

// onAttached sets up a popup of one of our tabs, then lets the page go on.
func (b *Browser) onAttached(ev *target.EventAttachedToTarget) {
	if !ev.WaitingForDebugger {
		// Not a page paused by the auto-attach: a session chromedp
		// attached itself, or a page open before the watch began.
		return
	}
	ctx, cancel := context.WithTimeout(b.root, popupWait)
	defer cancel()
	info := ev.TargetInfo
	var opener *Page
	var s *Session
	if info.Type == "page" && info.OpenerID != "" {
		opener, s = b.pageOf(info.OpenerID)
	}
	if opener == nil {
		b.release(ev.SessionID)
		return
	}
	p, err := b.adoptPopup(ctx, s, opener, info.TargetID, ev.SessionID)
	opener.popupDone(p, info.URL, err)
}

// release lets a new page paused by the auto-attach go on: it sends
// Runtime.runIfWaitingForDebugger on the browser's paused session, which
// ends the wait of its navigation (and of its renderer), then detaches the
// session. chromedp routes commands only through the sessions it attached
// itself, so the command goes through a Target value naming the paused
// session on the same browser connection (chromedp v0.23.0's Target keeps
// the connection in its unexported field browser). The answer comes back
// to a session chromedp does not route, so it is not waited for; the
// detach follows it in order on the connection, after a grace period, in
// a goroutine of its own.
func (b *Browser) release(paused target.SessionID) {
	via := chromedp.FromContext(b.root).Target
	if via == nil {
		return
	}
	t := &chromedp.Target{SessionID: paused}
	dst := reflect.ValueOf(t).Elem().FieldByName("browser")
	src := reflect.ValueOf(via).Elem().FieldByName("browser")
	if !dst.IsValid() || !src.IsValid() {
		// A chromedp other than the pinned v0.23.0: the page stays
		// paused rather than the Igor panicking; TestChromedpInternals
		// fails first.
		return
	}
	reflect.NewAt(dst.Type(), unsafe.Pointer(dst.UnsafeAddr())).Elem().Set(reflect.NewAt(src.Type(), unsafe.Pointer(src.UnsafeAddr())).Elem())
	go func() {
		ctx, cancel := context.WithTimeout(b.root, releaseGrace)
		t.Call(ctx, runtime.RunIfWaitingForDebugger.Method, cdp.Empty{}, nil) //nolint:errcheck // no answer is routed back: this ends at the grace period
		cancel()
		ctx, cancel = context.WithTimeout(b.root, releaseGrace)
		defer cancel()
		chromedp.CallBrowser(ctx, target.DetachFromTarget, target.DetachFromTargetParams{SessionID: paused}) //nolint:errcheck // a page closed meanwhile has nothing to detach
	}()
}

// releaseGrace is how long release waits before detaching the paused
// session it let go.
const releaseGrace = time.Second

// forgetTab takes a tab the page closed itself (a popup calling
// window.close()) out of its session, as browser_tabs close would: the
// tab before it becomes active if it was.
func (b *Browser) forgetTab(id target.ID) {
	b.mu.Lock()
	var gone *Page
	for _, s := range b.sessions {
		i := slices.IndexFunc(s.pages, func(p *Page) bool { return string(p.frame) == string(id) })
		if i <= 0 { // not here, or the tab that holds the session
			continue
		}
		gone = s.pages[i]
		s.pages = slices.Delete(s.pages, i, i+1)
		if s.active >= i {
			s.active = max(s.active-1, 0)
		}
	}
	b.mu.Unlock()
	if gone != nil {
		gone.cancel()
	}
}

// pageOf finds the tab of target id and its session.
func (b *Browser) pageOf(id target.ID) (*Page, *Session) {
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, s := range b.sessions {
		for _, p := range s.pages {
			if string(p.frame) == string(id) {
				return p, s
			}
		}
	}
	return nil, nil
}

// adoptPopup attaches to the paused popup id of opener, sends it the
// session's set-up, lets it go (paused is the browser's paused session),
// and adds it to the session's tabs with opener's dialog rule.
//
// A popup without an opener (rel=noopener, which a target=_blank link
// implies) has no renderer until its navigation starts, so the browser
// holds the commands the renderer answers until then: the set-up is sent
// in order without waiting for those answers, and the last command (the
// routes' Fetch.enable or Fetch.disable, which the browser answers
// itself) is waited for before the page is let go. A popup that shares
// its opener's renderer also waits in the renderer, which
// Runtime.runIfWaitingForDebugger ends.
func (b *Browser) adoptPopup(ctx context.Context, s *Session, opener *Page, id target.ID, paused target.SessionID) (*Page, error) {
	// The page records from the first event: its paused requests must
	// meet the routes from the start.
	p := newPage(nil, nil)
	tctx, cancel := chromedp.NewContext(s.first, chromedp.WithTargetID(id), chromedp.WithListener(func(ev any) { p.record(ev) }))
	p.ctx, p.cancel, p.frame, p.session = tctx, cancel, cdp.FrameID(id), s
	p.policy = opener.DialogPolicy()
	p.varName = s.newVar("popup")
	attached := make(chan error, 1)
	go func() { attached <- chromedp.Do(tctx) }()
	t, err := attachedTarget(ctx, tctx, attached)
	if err != nil {
		b.release(paused)
		cancel()
		return nil, describe("attach to the popup", err)
	}
	cmds := b.setup(s)
	last := cmds[len(cmds)-1]
	for _, c := range cmds[:len(cmds)-1] {
		sent := make(chan struct{})
		go func() {
			close(sent)
			t.Call(tctx, c.method, c.params, nil) //nolint:errcheck // answered once the page has a renderer; a failure shows in prepare's errors for tabs, not here
		}()
		<-sent
	}
	err = t.Call(ctx, last.method, last.params, nil)
	b.release(paused)
	if err != nil {
		cancel()
		return nil, last.fail(err)
	}
	select {
	case err = <-attached:
	case <-ctx.Done():
		err = ctx.Err()
	}
	if err != nil {
		cancel()
		return nil, describe("attach to the popup", err)
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed {
		cancel()
		return nil, context.Canceled
	}
	s.pages = append(s.pages, p)
	return p, nil
}

// attachedTarget waits until chromedp has attached a session to tctx's
// target (before it enables the domains, which a popup without a
// renderer answers only once let go), and returns it.
func attachedTarget(ctx, tctx context.Context, attached chan error) (*chromedp.Target, error) {
	c := chromedp.FromContext(tctx)
	tick := time.NewTicker(time.Millisecond)
	defer tick.Stop()
	for {
		if t := targetOf(c); t != nil {
			return t, nil
		}
		select {
		case err := <-attached:
			attached <- err // for the caller
			if t := targetOf(c); t != nil {
				return t, nil
			}
			return nil, err
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-tick.C:
		}
	}
}

// notePopup counts a popup the tab opened (in its event loop, p.mu held).
func (p *Page) notePopup(e *target.EventTargetCreated) {
	if e.TargetInfo == nil || e.TargetInfo.Type != "page" || string(e.TargetInfo.OpenerID) != string(p.frame) {
		return
	}
	p.popupsPending++
}

// popupDone records the end of a popup's set-up: the popup, or why it
// failed.
func (p *Page) popupDone(popup *Page, url string, err error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.popupsPending > 0 {
		p.popupsPending--
	}
	if err != nil {
		log.Printf("browser: a popup of %s (%s) was left as it opened: %v", p, url, err)
	} else {
		p.popups = append(p.popups, openedPopup{page: popup, url: url})
	}
	close(p.popupWake)
	p.popupWake = make(chan struct{})
}

// openedPopup is a popup set up and not reported yet.
type openedPopup struct {
	page *Page
	url  string
}

// TakePopups waits until the popups tab p opened are set up (up to
// popupWait), and returns those not reported before, with their tab
// indexes.
func (b *Browser) TakePopups(ctx context.Context, p *Page) []Popup {
	deadline := time.NewTimer(popupWait)
	defer deadline.Stop()
	for {
		p.mu.Lock()
		pending, wake, opened := p.popupsPending, p.popupWake, p.popups
		if pending == 0 {
			p.popups = nil
		}
		s := p.session
		p.mu.Unlock()
		if pending == 0 {
			if len(opened) == 0 || s == nil {
				return nil
			}
			b.mu.Lock()
			defer b.mu.Unlock()
			out := make([]Popup, 0, len(opened))
			for _, o := range opened {
				out = append(out, Popup{Tab: slices.Index(s.pages, o.page), URL: o.url, Var: o.page.varName})
			}
			return out
		}
		select {
		case <-wake:
		case <-ctx.Done():
			return nil
		case <-deadline.C:
			return nil
		}
	}
}

// newVar names a tab in the session's exported test: prefix and a number,
// counting per prefix from 1 (page1, page2, popup1, ...).
func (s *Session) newVar(prefix string) string {
	s.steps.mu.Lock()
	defer s.steps.mu.Unlock()
	if s.vars == nil {
		s.vars = map[string]int{}
	}
	s.vars[prefix]++
	return prefix + strconv.Itoa(s.vars[prefix])
}

// quietErrors is chromedp's error log without the notes about sessions it
// did not make (the paused sessions of new pages that release detaches).
func quietErrors(format string, args ...any) {
	if strings.HasPrefix(format, "executor for ") {
		return
	}
	log.Printf("ERROR: "+format, args...)
}

// targetOf reads c's Target while chromedp may be attaching it: under the
// lock chromedp writes it under (Context.targetMu, unexported in chromedp
// v0.23.0), so that what the Target holds is seen as written.
func targetOf(c *chromedp.Context) *chromedp.Target {
	f := reflect.ValueOf(c).Elem().FieldByName("targetMu")
	if !f.IsValid() || f.Type() != reflect.TypeFor[sync.Mutex]() {
		return c.Target // a chromedp other than the pinned one: TestChromedpInternals fails first
	}
	mu := (*sync.Mutex)(unsafe.Pointer(f.UnsafeAddr()))
	mu.Lock()
	defer mu.Unlock()
	return c.Target
}
