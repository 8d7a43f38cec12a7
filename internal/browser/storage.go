package browser

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/url"
	"slices"
	"strings"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/domstorage"
	"github.com/chromedp/cdproto/fetch"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/storage"
	"github.com/chromedp/chromedp"

	"github.com/barrhawk/barrhawk/internal/tool"
)

// Cookie is a cookie as Playwright's storage state holds it.
type Cookie struct {
	Name   string `json:"name"`
	Value  string `json:"value"`
	Domain string `json:"domain"`
	Path   string `json:"path"`
	// Expires is Unix time in seconds; -1 for a session cookie.
	Expires  float64 `json:"expires"`
	HTTPOnly bool    `json:"httpOnly"`
	Secure   bool    `json:"secure"`
	// SameSite is Strict, Lax or None.
	SameSite string `json:"sameSite"`
}

// NameValue is one item of a Web Storage area.
type NameValue struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

// OriginState is the localStorage of one origin.
type OriginState struct {
	Origin       string      `json:"origin"`
	LocalStorage []NameValue `json:"localStorage"`
}

// StorageState is a session's cookies and the localStorage of its
// origins, in the shape of Playwright's storageState (the JSON
// browserContext.storageState() writes and newContext({storageState})
// reads).
type StorageState struct {
	Cookies []Cookie      `json:"cookies"`
	Origins []OriginState `json:"origins"`
}

// CookieParam is a cookie to set: Name and Value, and either URL or
// Domain (with Path, "/" when empty). Expires is Unix seconds, 0 or -1
// for a session cookie.
type CookieParam struct {
	Name     string
	Value    string
	URL      string
	Domain   string
	Path     string
	Expires  float64
	HTTPOnly bool
	Secure   bool
	SameSite string
}

// session returns the session named name (the active one for ""), its
// browser context's id ("" for the browser's default context) and a copy
// of its tabs.
func (b *Browser) session(name string) (*Session, cdp.BrowserContextID, []*Page, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed {
		return nil, "", nil, tool.Errorf(tool.CodeToolError, "the browser was closed; call browser_launch (or any browser tool) to start a new one")
	}
	if name == "" {
		name = b.active
	}
	s := b.sessions[name]
	if s == nil {
		return nil, "", nil, tool.Errorf(tool.CodeNotFound, "no session %q; sessions: %s", name, strings.Join(b.sessionNames(), ", "))
	}
	var id cdp.BrowserContextID
	if c := chromedp.FromContext(s.first); c != nil {
		id = c.BrowserContextID
	}
	return s, id, slices.Clone(s.pages), nil
}

// onBrowser runs f with a context that sends commands to the browser
// endpoint (chromedp.CallBrowser) of session s, ending with ctx.
func onBrowser(ctx context.Context, s *Session, what string, f func(ctx context.Context) error) error {
	bctx, cancel := context.WithCancel(s.first)
	defer cancel()
	stop := context.AfterFunc(ctx, cancel)
	defer stop()
	if err := f(bctx); err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return describe(what, err)
	}
	return nil
}

// Cookies returns every cookie of the session (the active one for "").
func (b *Browser) Cookies(ctx context.Context, session string) ([]Cookie, error) {
	s, id, _, err := b.session(session)
	if err != nil {
		return nil, err
	}
	var out []Cookie
	err = onBrowser(ctx, s, "read the cookies", func(ctx context.Context) error {
		res, err := chromedp.CallBrowser(ctx, storage.GetCookies, storage.GetCookiesParams{BrowserContextID: id})
		if err != nil {
			return err
		}
		out = make([]Cookie, 0, len(res.Cookies))
		for _, c := range res.Cookies {
			out = append(out, cookieOf(c))
		}
		return nil
	})
	return out, err
}

// cookieOf is the protocol's cookie as Playwright writes it.
func cookieOf(c *network.Cookie) Cookie {
	exp := c.Expires
	if c.Session || exp <= 0 || math.IsInf(exp, 0) || math.IsNaN(exp) {
		exp = -1
	}
	ss := string(c.SameSite)
	if ss == "" {
		ss = "Lax" // Chromium's default, and what Playwright reports
	}
	return Cookie{Name: c.Name, Value: c.Value, Domain: c.Domain, Path: c.Path, Expires: exp, HTTPOnly: c.HTTPOnly, Secure: c.Secure, SameSite: ss}
}

// SetCookies sets cookies in the session (the active one for ""). A
// cookie the browser refuses (a Secure one for an http URL, SameSite=None
// without Secure, a domain the URL is not in) is an error naming it.
func (b *Browser) SetCookies(ctx context.Context, session string, cookies []CookieParam) error {
	s, id, _, err := b.session(session)
	if err != nil {
		return err
	}
	params := make([]*network.CookieParam, 0, len(cookies))
	for i, c := range cookies {
		cp, err := cookieParam(c)
		if err != nil {
			if len(cookies) > 1 {
				return tool.Errorf(tool.CodeInvalidArgs, "cookie %d (%q): %v", i, c.Name, err)
			}
			return err
		}
		params = append(params, cp)
	}
	return onBrowser(ctx, s, "set the cookies", func(ctx context.Context) error {
		if _, err := chromedp.CallBrowser(ctx, storage.SetCookies, storage.SetCookiesParams{Cookies: params, BrowserContextID: id}); err != nil {
			if len(params) == 1 {
				return tool.Errorf(tool.CodeInvalidArgs, "the browser refused the cookie %q (domain %q, path %q, url %q): %v; a Secure cookie needs an https URL (or localhost), SameSite None needs Secure, and the domain must be the URL's host or a parent of it",
					params[0].Name, params[0].Domain, params[0].Path, params[0].URL, err)
			}
			return tool.Errorf(tool.CodeInvalidArgs, "the browser refused one of %d cookies: %v; check each has a domain (or url), that a Secure one is for https (or localhost), and that SameSite None comes with Secure", len(params), err)
		}
		return nil
	})
}

// cookieParam checks a cookie to set and turns it into the protocol's.
func cookieParam(c CookieParam) (*network.CookieParam, error) {
	if c.Name == "" {
		return nil, tool.Errorf(tool.CodeInvalidArgs, "argument \"name\": empty; a cookie needs a name")
	}
	if c.URL == "" && c.Domain == "" {
		return nil, tool.Errorf(tool.CodeInvalidArgs, "cookie %q has neither a domain nor a url; give one (domain \"example.com\" or url \"https://example.com/\")", c.Name)
	}
	cp := &network.CookieParam{Name: c.Name, Value: c.Value, URL: c.URL, Domain: c.Domain, Path: c.Path, HTTPOnly: c.HTTPOnly, Secure: c.Secure}
	if c.URL == "" && cp.Path == "" {
		cp.Path = "/"
	}
	switch c.SameSite {
	case "":
	case "Strict", "Lax", "None":
		cp.SameSite = network.CookieSameSite(c.SameSite)
	default:
		return nil, tool.Errorf(tool.CodeInvalidArgs, "cookie %q: sameSite %q; use Strict, Lax or None", c.Name, c.SameSite)
	}
	if c.SameSite == "None" && !c.Secure {
		return nil, tool.Errorf(tool.CodeInvalidArgs, "cookie %q: sameSite None needs secure: true (browsers refuse it otherwise)", c.Name)
	}
	switch {
	case c.Expires > 0:
		cp.Expires = cdp.TimeSinceEpoch(c.Expires)
	case c.Expires == 0 || c.Expires == -1:
	default:
		return nil, tool.Errorf(tool.CodeInvalidArgs, "cookie %q: expires %v; give Unix time in seconds, or -1 for a session cookie", c.Name, c.Expires)
	}
	return cp, nil
}

// DeleteCookies removes the session's cookies named name, only those of
// domain and path when given; it returns those removed.
func (b *Browser) DeleteCookies(ctx context.Context, session, name, domain, path string) ([]Cookie, error) {
	all, err := b.Cookies(ctx, session)
	if err != nil {
		return nil, err
	}
	var gone []Cookie
	for _, c := range all {
		if c.Name == name && (domain == "" || DomainMatches(c.Domain, domain)) && (path == "" || c.Path == path) {
			gone = append(gone, c)
		}
	}
	if len(gone) == 0 {
		return nil, nil
	}
	// The storage domain sets and clears only: a cookie is removed by
	// setting it again, expired, with its own domain, path and flags. A
	// host-only cookie (its domain without the leading dot) is set through
	// a URL of its host, or it would come back as a domain cookie.
	expired := make([]CookieParam, 0, len(gone))
	for _, c := range gone {
		cp := CookieParam{Name: c.Name, Value: "", Path: c.Path, Expires: 1, HTTPOnly: c.HTTPOnly, Secure: c.Secure, SameSite: c.SameSite}
		if strings.HasPrefix(c.Domain, ".") {
			cp.Domain = c.Domain
		} else {
			scheme := "http"
			if c.Secure {
				scheme = "https"
			}
			cp.URL = scheme + "://" + c.Domain + c.Path
		}
		if cp.SameSite == "None" && !cp.Secure {
			cp.SameSite = ""
		}
		expired = append(expired, cp)
	}
	if err := b.SetCookies(ctx, session, expired); err != nil {
		return nil, err
	}
	return gone, nil
}

// DomainMatches says whether a cookie of domain cookieDomain belongs to
// domain: the same host, or a subdomain of it (a leading dot on either is
// ignored).
func DomainMatches(cookieDomain, domain string) bool {
	c, d := strings.TrimPrefix(strings.ToLower(cookieDomain), "."), strings.TrimPrefix(strings.ToLower(domain), ".")
	return c == d || strings.HasSuffix(c, "."+d)
}

// ClearCookies removes every cookie of the session (the active one for
// "").
func (b *Browser) ClearCookies(ctx context.Context, session string) error {
	s, id, _, err := b.session(session)
	if err != nil {
		return err
	}
	return onBrowser(ctx, s, "clear the cookies", func(ctx context.Context) error {
		_, err := chromedp.CallBrowser(ctx, storage.ClearCookies, storage.ClearCookiesParams{BrowserContextID: id})
		return err
	})
}

// Web Storage of a tab: localStorage or sessionStorage of its document's
// origin.

// Storage areas.
const (
	LocalStorage   = "localStorage"
	SessionStorage = "sessionStorage"
)

// WebStorage is the answer of a Web Storage operation: the tab's origin
// and what the operation found.
type WebStorage struct {
	Origin string      `json:"origin"`
	Items  []NameValue `json:"items,omitempty"`
	// Value is the item's value (Get), nil when there is none.
	Value *string `json:"value,omitempty"`
	// Found says the key was there (Get, Remove).
	Found bool `json:"found"`
	// Count is how many items there were (Clear) or are (List).
	Count int `json:"count"`
}

// webStorageJS runs one operation on a storage area; an origin the page
// has no storage for answers {opaque: url}.
const webStorageJS = `(a) => {
  if (location.origin === 'null' || !/^https?:$/.test(location.protocol) && location.protocol !== 'file:') return {opaque: location.href};
  let s;
  try { s = window[a.area]; } catch (e) { return {denied: String(e && e.message || e), url: location.href}; }
  const items = () => { const out = []; for (let i = 0; i < s.length; i++) { const k = s.key(i); out.push({name: k, value: s.getItem(k)}); } return out; };
  const r = {origin: location.origin, found: false, count: 0};
  switch (a.op) {
  case 'list': r.items = items(); r.count = r.items.length; break;
  case 'get': { const v = s.getItem(a.key); r.found = v !== null; if (v !== null) r.value = v; break; }
  case 'set': s.setItem(a.key, a.value); r.found = true; break;
  case 'delete': r.found = s.getItem(a.key) !== null; s.removeItem(a.key); break;
  case 'clear': r.count = s.length; s.clear(); break;
  }
  return r;
}`

// WebStorageOp runs op (list, get, set, delete, clear) on area
// (LocalStorage or SessionStorage) of the tab's origin. A tab without an
// origin (about:blank, a data: URL) is an error naming its URL.
func (p *Page) WebStorageOp(ctx context.Context, area, op, key, value string) (*WebStorage, error) {
	if area != LocalStorage && area != SessionStorage {
		return nil, tool.Errorf(tool.CodeInternal, "web storage area %q", area)
	}
	arg, _ := json.Marshal(map[string]string{"area": area, "op": op, "key": key, "value": value})
	raw, err := p.Evaluate(ctx, webStorageJS, arg)
	if err != nil {
		if te := (*tool.Error)(nil); errors.As(err, &te) && strings.Contains(te.Message, "QuotaExceededError") {
			return nil, tool.Errorf(tool.CodeToolError, "%s is full for this origin (browsers allow about 5 MB): %s", area, te.Message)
		}
		return nil, err
	}
	var r struct {
		WebStorage
		Opaque string `json:"opaque"`
		Denied string `json:"denied"`
		URL    string `json:"url"`
	}
	if err := json.Unmarshal(raw, &r); err != nil {
		return nil, tool.Errorf(tool.CodeInternal, "%s %s: the page answered %.200s: %v", area, op, raw, err)
	}
	if r.Opaque != "" {
		return nil, tool.Errorf(tool.CodeToolError, "the tab shows %s, which has no origin and so no %s; open a page of the site first with browser_navigate", tool.Shorten(r.Opaque, 200), area)
	}
	if r.Denied != "" {
		return nil, tool.Errorf(tool.CodeToolError, "%s of %s is not available: %s", area, tool.Shorten(r.URL, 200), r.Denied)
	}
	return &r.WebStorage, nil
}

// StorageState is the session's (the active one for "") storage state:
// all its cookies, and the localStorage of every origin open in its tabs
// (origins whose localStorage is empty are left out, as Playwright does).
func (b *Browser) StorageState(ctx context.Context, session string) (*StorageState, error) {
	cookies, err := b.Cookies(ctx, session)
	if err != nil {
		return nil, err
	}
	_, _, pages, err := b.session(session)
	if err != nil {
		return nil, err
	}
	st := &StorageState{Cookies: cookies, Origins: []OriginState{}}
	seen := map[string]bool{}
	for _, p := range pages {
		if p.PendingDialog() != nil {
			continue // its page is held; its origin is read from another tab or not at all
		}
		ws, err := p.WebStorageOp(ctx, LocalStorage, "list", "", "")
		if err != nil {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			continue // no origin (about:blank), or none of its own
		}
		if seen[ws.Origin] || len(ws.Items) == 0 || !strings.HasPrefix(ws.Origin, "http") {
			continue
		}
		seen[ws.Origin] = true
		st.Origins = append(st.Origins, OriginState{Origin: ws.Origin, LocalStorage: ws.Items})
	}
	return st, nil
}

// ApplyStorageState loads st into the session (the active one for ""), as
// Playwright's setStorageState does: its cookies replace the session's,
// and each origin's localStorage is replaced by the one in st. The
// localStorage is written in a temporary tab of the session that opens
// each origin with every request answered by an empty page, so no request
// reaches the site. The session's open tabs keep their documents: a
// navigation (or browser_reload) shows the site with the new state.
func (b *Browser) ApplyStorageState(ctx context.Context, session string, st StorageState) error {
	if err := st.Check(); err != nil {
		return err
	}
	s, _, _, err := b.session(session)
	if err != nil {
		return err
	}
	if err := b.ClearCookies(ctx, session); err != nil {
		return err
	}
	if len(st.Cookies) > 0 {
		params := make([]CookieParam, len(st.Cookies))
		for i, c := range st.Cookies {
			params[i] = CookieParam{Name: c.Name, Value: c.Value, Domain: c.Domain, Path: c.Path, Expires: c.Expires, HTTPOnly: c.HTTPOnly, Secure: c.Secure, SameSite: c.SameSite}
			if params[i].SameSite == "None" && !params[i].Secure {
				params[i].SameSite = "" // Chromium refuses it; Playwright files from other browsers have it
			}
		}
		if err := b.SetCookies(ctx, session, params); err != nil {
			return err
		}
	}
	if len(st.Origins) == 0 {
		return nil
	}
	b.mu.Lock()
	pages := slices.Clone(s.pages)
	b.mu.Unlock()
	rest := st.Origins
	for _, p := range pages {
		if len(rest) == 0 {
			return nil
		}
		rest = writeOriginsFrom(ctx, p, rest)
	}
	if len(rest) == 0 {
		return nil
	}
	return writeOrigins(ctx, s, rest)
}

// writeOriginsFrom writes, through the tab p with the DOMStorage domain,
// the localStorage of the origins that one of p's frames shows (ten times
// faster than opening a tab for it, as writeOrigins does), and returns the
// origins it did not write. Each one written is read back.
func writeOriginsFrom(ctx context.Context, p *Page, origins []OriginState) (rest []OriginState) {
	tctx, done := p.withCall(ctx)
	defer done()
	for _, o := range origins {
		if err := writeOriginFrom(tctx, o); err != nil {
			rest = append(rest, o) // no frame of that origin here ("Frame not found"), or it failed: another way
		}
	}
	return rest
}

func writeOriginFrom(tctx context.Context, o OriginState) error {
	id := &domstorage.StorageID{SecurityOrigin: o.Origin, IsLocalStorage: true}
	if _, err := chromedp.Call(tctx, domstorage.Clear, domstorage.ClearParams{StorageID: id}); err != nil {
		return err
	}
	for _, it := range o.LocalStorage {
		if _, err := chromedp.Call(tctx, domstorage.SetDOMStorageItem, domstorage.SetDOMStorageItemParams{StorageID: id, Key: it.Name, Value: it.Value}); err != nil {
			return err
		}
	}
	got, err := chromedp.Call(tctx, domstorage.GetDOMStorageItems, domstorage.GetDOMStorageItemsParams{StorageID: id})
	if err != nil {
		return err
	}
	if len(got.Entries) != len(o.LocalStorage) {
		return fmt.Errorf("localStorage of %s: %d items written, %d read back", o.Origin, len(o.LocalStorage), len(got.Entries))
	}
	return nil
}

// writeOrigins writes each origin's localStorage from a temporary tab of
// the session whose requests are all answered, by the tab itself, with an
// empty page.
func writeOrigins(ctx context.Context, s *Session, origins []OriginState) error {
	tctx, cancel := chromedp.NewContext(s.first)
	defer cancel()
	stop := context.AfterFunc(ctx, cancel)
	defer stop()
	if err := chromedp.Do(tctx); err != nil {
		return describe("open a tab to write localStorage", err)
	}
	if err := chromedp.Listen(tctx, func(ev any) {
		if e, ok := ev.(*fetch.EventRequestPaused); ok {
			go func() {
				_, _ = chromedp.Call(tctx, fetch.FulfillRequest, fetch.FulfillRequestParams{RequestID: e.RequestID, ResponseCode: 200,
					ResponseHeaders: []*fetch.HeaderEntry{{Name: "Content-Type", Value: "text/html"}}, Body: []byte(emptyPage)})
			}()
		}
	}); err != nil {
		return describe("listen to the storage tab", err)
	}
	if _, err := chromedp.Call(tctx, fetch.Enable, fetch.EnableParams{Patterns: []*fetch.RequestPattern{{URLPattern: "*"}}}); err != nil {
		return describe("intercept the storage tab's requests", err)
	}
	for _, o := range origins {
		if err := chromedp.Do(tctx, chromedp.Navigate(o.Origin+"/")); err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			return tool.Errorf(tool.CodeToolError, "open %s to write its localStorage: %v", o.Origin, err)
		}
		arg, _ := json.Marshal(o.LocalStorage)
		expr := "((items) => { sessionStorage.clear(); localStorage.clear(); for (const {name, value} of items) localStorage.setItem(name, value); return location.origin; })(" + string(arg) + ")"
		got, err := chromedp.Run(tctx, chromedp.Evaluate[string](expr))
		if err != nil {
			return tool.Errorf(tool.CodeToolError, "write the localStorage of %s: %v", o.Origin, err)
		}
		if got != o.Origin {
			return tool.Errorf(tool.CodeToolError, "write the localStorage of %s: the page opened has origin %s instead", o.Origin, got)
		}
	}
	return nil
}

// emptyPage answers every request of the tab writing localStorage; its
// icon keeps the browser from asking the site for /favicon.ico.
const emptyPage = `<html><head><link rel="icon" href="data:,"></head></html>`

// ParseStorageState reads a storage state in Playwright's JSON shape
// ({cookies: [...], origins: [{origin, localStorage: [{name, value}]}]});
// fields Playwright may add (indexedDB, opfs, credentials) are ignored. A
// document of another shape is an error naming the first field wrong and
// what it should be.
func ParseStorageState(data []byte) (*StorageState, error) {
	var doc any
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	if err := dec.Decode(&doc); err != nil {
		var se *json.SyntaxError
		if errors.As(err, &se) {
			line := bytes.Count(data[:min(int(se.Offset), len(data))], []byte("\n")) + 1
			return nil, fmt.Errorf("not JSON: %v (line %d)", err, line)
		}
		return nil, fmt.Errorf("not JSON: %v", err)
	}
	top, ok := doc.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("the document is %s, not an object {cookies, origins}", jsonKind(doc))
	}
	if top["cookies"] == nil && top["origins"] == nil {
		return nil, fmt.Errorf("the object has neither \"cookies\" nor \"origins\" (its keys: %s); a storage state is {cookies: [...], origins: [...]}", keysOf(top))
	}
	st := &StorageState{Cookies: []Cookie{}, Origins: []OriginState{}}
	if v, ok := top["cookies"]; ok && v != nil {
		list, ok := v.([]any)
		if !ok {
			return nil, fmt.Errorf("cookies is %s, not an array", jsonKind(v))
		}
		for i, item := range list {
			c, err := parseCookie(item)
			if err != nil {
				return nil, fmt.Errorf("cookies[%d]: %v", i, err)
			}
			st.Cookies = append(st.Cookies, c)
		}
	}
	if v, ok := top["origins"]; ok && v != nil {
		list, ok := v.([]any)
		if !ok {
			return nil, fmt.Errorf("origins is %s, not an array", jsonKind(v))
		}
		for i, item := range list {
			o, err := parseOrigin(item)
			if err != nil {
				return nil, fmt.Errorf("origins[%d]: %v", i, err)
			}
			st.Origins = append(st.Origins, o)
		}
	}
	return st, nil
}

func parseCookie(v any) (Cookie, error) {
	m, ok := v.(map[string]any)
	if !ok {
		return Cookie{}, fmt.Errorf("is %s, not an object {name, value, domain, path, ...}", jsonKind(v))
	}
	var c Cookie
	var err error
	str := func(key string, required bool) string {
		if err != nil {
			return ""
		}
		x, present := m[key]
		if !present || x == nil {
			if required {
				err = fmt.Errorf("%s: missing (a cookie has name, value, domain and path)", key)
			}
			return ""
		}
		s, ok := x.(string)
		if !ok {
			err = fmt.Errorf("%s is %s, not a string", key, jsonKind(x))
		}
		return s
	}
	flag := func(key string) bool {
		if err != nil {
			return false
		}
		x, present := m[key]
		if !present || x == nil {
			return false
		}
		b, ok := x.(bool)
		if !ok {
			err = fmt.Errorf("%s is %s, not true or false", key, jsonKind(x))
		}
		return b
	}
	c.Name, c.Value, c.Domain, c.Path = str("name", true), str("value", true), str("domain", true), str("path", false)
	c.SameSite = str("sameSite", false)
	c.HTTPOnly, c.Secure = flag("httpOnly"), flag("secure")
	if err != nil {
		return c, err
	}
	if c.Name == "" {
		return c, fmt.Errorf("name: empty")
	}
	if c.Domain == "" {
		return c, fmt.Errorf("domain: empty (cookie %q)", c.Name)
	}
	if c.Path == "" {
		c.Path = "/"
	}
	c.Expires = -1
	if x, ok := m["expires"]; ok && x != nil {
		n, ok := x.(json.Number)
		if !ok {
			return c, fmt.Errorf("expires is %s, not a number (Unix seconds, or -1)", jsonKind(x))
		}
		if c.Expires, err = n.Float64(); err != nil || c.Expires < 0 && c.Expires != -1 {
			return c, fmt.Errorf("expires %s: give Unix time in seconds, or -1 for a session cookie", n)
		}
	}
	switch c.SameSite {
	case "":
		c.SameSite = "Lax"
	case "Strict", "Lax", "None":
	default:
		return c, fmt.Errorf("sameSite %q: use Strict, Lax or None", c.SameSite)
	}
	return c, nil
}

func parseOrigin(v any) (OriginState, error) {
	m, ok := v.(map[string]any)
	if !ok {
		return OriginState{}, fmt.Errorf("is %s, not an object {origin, localStorage}", jsonKind(v))
	}
	o := OriginState{LocalStorage: []NameValue{}}
	s, ok := m["origin"].(string)
	if !ok {
		return o, fmt.Errorf("origin: missing or not a string (an origin is scheme://host[:port], such as https://example.com)")
	}
	o.Origin = s
	if err := checkOrigin(s); err != nil {
		return o, err
	}
	ls, present := m["localStorage"]
	if !present || ls == nil {
		return o, nil
	}
	list, ok := ls.([]any)
	if !ok {
		return o, fmt.Errorf("localStorage is %s, not an array of {name, value}", jsonKind(ls))
	}
	for i, item := range list {
		nv, ok := item.(map[string]any)
		name, nok := nv["name"].(string)
		value, vok := nv["value"].(string)
		if !ok || !nok || !vok {
			return o, fmt.Errorf("localStorage[%d]: not an object {name, value} of two strings", i)
		}
		o.LocalStorage = append(o.LocalStorage, NameValue{Name: name, Value: value})
	}
	return o, nil
}

// checkOrigin refuses what is not an http(s) origin.
func checkOrigin(s string) error {
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || (u.Path != "" && u.Path != "/") || u.RawQuery != "" {
		return fmt.Errorf("origin %q is not an http or https origin (scheme://host[:port], such as https://example.com)", s)
	}
	return nil
}

// Check says what is wrong with a state built in code (ApplyStorageState
// checks it first): cookies with no name or domain, origins that are not
// http(s) origins.
func (st StorageState) Check() error {
	for i, c := range st.Cookies {
		if c.Name == "" || c.Domain == "" {
			return tool.Errorf(tool.CodeInvalidArgs, "storage state: cookies[%d]: a cookie needs a name and a domain", i)
		}
	}
	for i, o := range st.Origins {
		if err := checkOrigin(o.Origin); err != nil {
			return tool.Errorf(tool.CodeInvalidArgs, "storage state: origins[%d]: %v", i, err)
		}
	}
	return nil
}

// jsonKind names the JSON type of a decoded value, for messages.
func jsonKind(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "a boolean"
	case json.Number, float64:
		return "a number"
	case string:
		return "a string"
	case []any:
		return "an array"
	case map[string]any:
		return "an object"
	}
	return fmt.Sprintf("%T", v)
}

func keysOf(m map[string]any) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	if len(keys) == 0 {
		return "none"
	}
	return strings.Join(keys, ", ")
}
