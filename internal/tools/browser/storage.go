package browser

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/url"
	"strings"

	"github.com/barrhawk/barrhawk/internal/browser"
	"github.com/barrhawk/barrhawk/internal/schema"
	"github.com/barrhawk/barrhawk/internal/tool"
	"github.com/barrhawk/barrhawk/internal/tools/fs"
)

// maxStateBytes bounds a storage state file read.
const maxStateBytes = 64 << 20

// cookieFilter keeps the cookies of name, domain (and its subdomains) and
// path, each when given.
func cookieFilter(all []browser.Cookie, name, domain, path string) []browser.Cookie {
	out := []browser.Cookie{}
	for _, c := range all {
		if (name == "" || c.Name == name) && (domain == "" || browser.DomainMatches(c.Domain, domain)) && (path == "" || c.Path == path) {
			out = append(out, c)
		}
	}
	return out
}

// cookieNames lists the names of cookies, for notes.
func cookieNames(all []browser.Cookie) string {
	if len(all) == 0 {
		return "the session has none"
	}
	seen := map[string]bool{}
	var names []string
	for _, c := range all {
		if !seen[c.Name] {
			seen[c.Name] = true
			names = append(names, c.Name)
		}
	}
	return "cookies: " + tool.Shorten(strings.Join(names, ", "), 500)
}

func cookieList() tool.Tool {
	type args struct {
		Domain string `json:"domain"`
		Path   string `json:"path"`
		Name   string `json:"name"`
	}
	return tool.Tool{
		Def: def("browser_cookie_list", "List the cookies of the active session (its browser context), optionally only those of a domain (subdomains included), a path or a name. Returns {cookies: [{name, value, domain, path, expires, httpOnly, secure, sameSite}], count}.", false,
			schema.Object(schema.String("domain", "Only cookies of this domain or its subdomains (example.com)"),
				schema.String("path", "Only cookies of exactly this path"),
				schema.String("name", "Only cookies of this name"))).
			WithPhrases("list cookies", "show cookies", "document.cookie", "which cookies are set", "session cookie", "auth cookie", "cookies of the site", "inspect cookies"),
		Run: browserRun(func(ctx context.Context, b *browser.Browser, in args) (any, error) {
			all, err := b.Cookies(ctx, "")
			if err != nil {
				return nil, err
			}
			out := cookieFilter(all, in.Name, in.Domain, in.Path)
			return map[string]any{"cookies": out, "count": len(out)}, nil
		}),
	}
}

func cookieGet() tool.Tool {
	type args struct {
		Name   string `json:"name"`
		Domain string `json:"domain"`
	}
	return tool.Tool{
		Def: def("browser_cookie_get", "Get a cookie of the active session by name (optionally of one domain). Returns {name, found, cookie: {name, value, domain, path, expires, httpOnly, secure, sameSite} or null}; cookies too when several domains or paths have it.", false,
			schema.Object(schema.String("name", "The cookie's name").Required().Min(1),
				schema.String("domain", "Only the cookie of this domain or its subdomains"))).
			WithPhrases("get cookie", "read cookie value", "cookie by name", "value of session id cookie", "is the auth cookie set", "check a cookie"),
		Run: browserRun(func(ctx context.Context, b *browser.Browser, in args) (any, error) {
			all, err := b.Cookies(ctx, "")
			if err != nil {
				return nil, err
			}
			hits := cookieFilter(all, in.Name, in.Domain, "")
			out := map[string]any{"name": in.Name, "found": len(hits) > 0, "cookie": nil}
			switch {
			case len(hits) == 0:
				where := ""
				if in.Domain != "" {
					where = " for domain " + in.Domain
				}
				out["note"] = fmt.Sprintf("no cookie %q%s; %s", in.Name, where, cookieNames(all))
			case len(hits) > 1:
				out["cookie"], out["cookies"] = hits[0], hits
			default:
				out["cookie"] = hits[0]
			}
			return out, nil
		}),
	}
}

func cookieSet() tool.Tool {
	type args struct {
		Name     string  `json:"name"`
		Value    string  `json:"value"`
		Domain   string  `json:"domain"`
		Path     string  `json:"path"`
		Expires  float64 `json:"expires"`
		HTTPOnly bool    `json:"httpOnly"`
		Secure   bool    `json:"secure"`
		SameSite string  `json:"sameSite"`
		URL      string  `json:"url"`
	}
	return tool.Tool{
		Def: def("browser_cookie_set", "Set a cookie in the active session: for domain (a domain cookie), or url, or by default the active tab's host (a host-only cookie, as the page's own document.cookie sets). Returns {cookie}, as the browser keeps it.", true,
			schema.Object(schema.String("name", "Cookie name").Required().Min(1),
				schema.String("value", "Cookie value").Required(),
				schema.String("domain", "Cookie domain (example.com: it is sent to subdomains too); default the active tab's host"),
				schema.String("path", "Cookie path").Default("/"),
				schema.Number("expires", "Expiry as Unix time in seconds; -1 or absent for a session cookie").Min(-1),
				schema.Boolean("httpOnly", "Hidden from the page's JavaScript").Default(false),
				schema.Boolean("secure", "Sent over https only (and to localhost)").Default(false),
				schema.String("sameSite", "SameSite attribute (None needs secure)").Enum("Strict", "Lax", "None"),
				schema.String("url", "Set it as if this URL's response had (instead of domain)"))).
			WithPhrases("set cookie", "add a cookie", "write cookie", "inject auth cookie", "set session cookie", "fake login cookie", "document.cookie ="),
		Run: browserRun(func(ctx context.Context, b *browser.Browser, in args) (any, error) {
			if in.URL != "" && in.Domain != "" {
				return nil, tool.Errorf(tool.CodeInvalidArgs, "arguments \"url\" and \"domain\": give one of them (url sets a host-only cookie for its host, domain a cookie for the domain and its subdomains)")
			}
			c := browser.CookieParam{Name: in.Name, Value: in.Value, Domain: in.Domain, Path: in.Path, Expires: in.Expires, HTTPOnly: in.HTTPOnly, Secure: in.Secure, SameSite: in.SameSite, URL: in.URL}
			if c.URL != "" {
				if u, err := url.Parse(c.URL); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
					return nil, tool.Errorf(tool.CodeInvalidArgs, "argument \"url\": %q is not an http or https URL", c.URL)
				}
			}
			if c.URL == "" && c.Domain == "" {
				p, err := b.Active()
				if err != nil {
					return nil, err
				}
				here, err := p.URL(ctx)
				if err != nil {
					return nil, err
				}
				u, perr := url.Parse(here)
				if perr != nil || (u.Scheme != "http" && u.Scheme != "https") {
					return nil, tool.Errorf(tool.CodeInvalidArgs, "the active tab shows %s, which has no host to set the cookie for: give domain (example.com) or url (https://example.com/), or open a page of the site first with browser_navigate", tool.Shorten(here, 200))
				}
				c.URL = u.Scheme + "://" + u.Host + "/"
			}
			if c.URL != "" && c.Path == "" {
				c.Path = "/"
			}
			if err := b.SetCookies(ctx, "", []browser.CookieParam{c}); err != nil {
				return nil, err
			}
			all, err := b.Cookies(ctx, "")
			if err != nil {
				return nil, err
			}
			host := c.Domain
			if c.URL != "" {
				u, _ := url.Parse(c.URL)
				host = u.Hostname()
			}
			path := c.Path
			if path == "" {
				path = "/"
			}
			for _, k := range all {
				if k.Name == c.Name && k.Path == path && browser.DomainMatches(k.Domain, host) {
					return map[string]any{"cookie": k}, nil
				}
			}
			return nil, tool.Errorf(tool.CodeToolError, "the browser did not keep the cookie %q (for %s, path %s): an expiry in the past removes it; %s", c.Name, host, path, cookieNames(all))
		}),
	}
}

func cookieDelete() tool.Tool {
	type args struct {
		Name   string `json:"name"`
		Domain string `json:"domain"`
		Path   string `json:"path"`
	}
	return tool.Tool{
		Def: def("browser_cookie_delete", "Delete the cookies of a name from the active session (every domain and path, or only those given). Returns {deleted, cookies: the ones removed}.", true,
			schema.Object(schema.String("name", "Cookie name").Required().Min(1),
				schema.String("domain", "Only the cookie of this domain (or its subdomains)"),
				schema.String("path", "Only the cookie of exactly this path"))).
			WithPhrases("delete cookie", "remove a cookie", "remove one cookie and keep the rest", "log out by removing cookie", "expire cookie", "drop session cookie", "kill the tracking cookie"),
		Run: browserRun(func(ctx context.Context, b *browser.Browser, in args) (any, error) {
			gone, err := b.DeleteCookies(ctx, "", in.Name, in.Domain, in.Path)
			if err != nil {
				return nil, err
			}
			out := map[string]any{"deleted": len(gone), "cookies": gone}
			if len(gone) == 0 {
				out["cookies"] = []browser.Cookie{}
				all, _ := b.Cookies(ctx, "")
				out["note"] = fmt.Sprintf("no cookie %q matched, nothing was deleted; %s", in.Name, cookieNames(all))
			}
			return out, nil
		}),
	}
}

func cookieClear() tool.Tool {
	return tool.Tool{
		Def: def("browser_cookie_clear", "Delete every cookie of the active session (other sessions keep theirs). Returns {cleared}: how many there were.", true, schema.Object()).
			WithPhrases("clear cookies", "delete all cookies", "remove every cookie", "reset cookies", "log out everywhere", "fresh cookie jar", "anonymous visitor again"),
		Run: browserRun(func(ctx context.Context, b *browser.Browser, _ struct{}) (any, error) {
			all, err := b.Cookies(ctx, "")
			if err != nil {
				return nil, err
			}
			if err := b.ClearCookies(ctx, ""); err != nil {
				return nil, err
			}
			return map[string]any{"cleared": len(all)}, nil
		}),
	}
}

// webStorage names and describes an area for the tools' texts.
func webStorage(area string) (short, desc string) {
	if area == browser.LocalStorage {
		return "localstorage", "localStorage (kept across reloads and tabs of the origin)"
	}
	return "sessionstorage", "sessionStorage (this tab's only)"
}

// webPhrases are the words of the Web Storage tools.
func webPhrases(area string, words ...string) []string {
	out := make([]string, 0, len(words))
	for _, w := range words {
		out = append(out, strings.ReplaceAll(w, "STORE", area))
	}
	return out
}

func webStorageList(area string) tool.Tool {
	short, desc := webStorage(area)
	return tool.Tool{
		Def: def("browser_"+short+"_list", "List the items of the active tab's "+desc+" for its origin. Returns {origin, items: [{name, value}], count}.", false, schema.Object()).
			WithPhrases(webPhrases(area, "list STORE", "show STORE items", "all STORE keys", "what is in STORE", "dump STORE")...),
		Run: pageRun(func(ctx context.Context, p *browser.Page, _ struct{}) (any, error) {
			ws, err := p.WebStorageOp(ctx, area, "list", "", "")
			if err != nil {
				return nil, err
			}
			if ws.Items == nil {
				ws.Items = []browser.NameValue{}
			}
			return map[string]any{"origin": ws.Origin, "items": ws.Items, "count": ws.Count}, nil
		}),
	}
}

func webStorageGet(area string) tool.Tool {
	short, desc := webStorage(area)
	return tool.Tool{
		Def: def("browser_"+short+"_get", "Get one item of the active tab's "+desc+". Returns {origin, key, found, value (null when absent)}.", false,
			schema.Object(schema.String("key", "The item's key").Required())).
			WithPhrases(webPhrases(area, "read STORE key", "STORE.getItem", "get STORE value", "token in STORE")...),
		Run: pageRun(func(ctx context.Context, p *browser.Page, in struct {
			Key string `json:"key"`
		}) (any, error) {
			ws, err := p.WebStorageOp(ctx, area, "get", in.Key, "")
			if err != nil {
				return nil, err
			}
			return map[string]any{"origin": ws.Origin, "key": in.Key, "found": ws.Found, "value": ws.Value}, nil
		}),
	}
}

func webStorageSet(area string) tool.Tool {
	short, desc := webStorage(area)
	return tool.Tool{
		Def: def("browser_"+short+"_set", "Set one item of the active tab's "+desc+" (the page's own storage events do not fire in the tab that sets it; reload to let the page read it at start). Returns {origin, key, value}.", true,
			schema.Object(schema.String("key", "The item's key").Required(), schema.String("value", "The value (a string; JSON as text)").Required())).
			WithPhrases(webPhrases(area, "STORE.setItem", "set STORE value", "write to STORE", "put token in STORE", "seed STORE")...),
		Run: pageRun(func(ctx context.Context, p *browser.Page, in struct {
			Key   string `json:"key"`
			Value string `json:"value"`
		}) (any, error) {
			ws, err := p.WebStorageOp(ctx, area, "set", in.Key, in.Value)
			if err != nil {
				return nil, err
			}
			return map[string]any{"origin": ws.Origin, "key": in.Key, "value": in.Value}, nil
		}),
	}
}

func webStorageDelete(area string) tool.Tool {
	short, desc := webStorage(area)
	return tool.Tool{
		Def: def("browser_"+short+"_delete", "Delete one item of the active tab's "+desc+". Returns {origin, key, deleted} (false when there was none).", true,
			schema.Object(schema.String("key", "The item's key").Required())).
			WithPhrases(webPhrases(area, "STORE.removeItem", "remove STORE key", "delete from STORE")...),
		Run: pageRun(func(ctx context.Context, p *browser.Page, in struct {
			Key string `json:"key"`
		}) (any, error) {
			ws, err := p.WebStorageOp(ctx, area, "delete", in.Key, "")
			if err != nil {
				return nil, err
			}
			return map[string]any{"origin": ws.Origin, "key": in.Key, "deleted": ws.Found}, nil
		}),
	}
}

func webStorageClear(area string) tool.Tool {
	short, desc := webStorage(area)
	return tool.Tool{
		Def: def("browser_"+short+"_clear", "Delete every item of the active tab's "+desc+". Returns {origin, cleared}: how many there were.", true, schema.Object()).
			WithPhrases(webPhrases(area, "STORE.clear()", "clear STORE", "empty STORE", "reset STORE")...),
		Run: pageRun(func(ctx context.Context, p *browser.Page, _ struct{}) (any, error) {
			ws, err := p.WebStorageOp(ctx, area, "clear", "", "")
			if err != nil {
				return nil, err
			}
			return map[string]any{"origin": ws.Origin, "cleared": ws.Count}, nil
		}),
	}
}

// filenameNote ends the description of the storage state's filename.
const filenameNote = " (relative to the server's working directory, or absolute inside an allowed root)"

func storageState() tool.Tool {
	type args struct {
		Filename string `json:"filename"`
	}
	d := def("browser_storage_state", "Save the active session's storage state in Playwright's storageState JSON: all its cookies and the localStorage of every origin open in its tabs; "+
		"browser_set_storage_state, browser_session_new {storageState} and Playwright's newContext({storageState}) load it. "+
		"Returns {path, cookies, origins} when written to filename, else the state itself {cookies, origins}.", false,
		schema.Object(schema.String("filename", "Write it to this JSON file"+filenameNote+"; without it, the state is answered inline")))
	d.UsesRoots = true
	return tool.Tool{
		Def: d.WithPhrases("save login state", "save storage state", "keep the logged in session for later", "export cookies and localStorage", "storageState json", "persist auth", "skip login next time", "save session to file"),
		Run: browserRun(func(ctx context.Context, b *browser.Browser, in args) (any, error) {
			st, err := b.StorageState(ctx, "")
			if err != nil {
				return nil, err
			}
			if in.Filename == "" {
				return st, nil
			}
			data, err := json.MarshalIndent(st, "", "  ")
			if err != nil {
				return nil, tool.Errorf(tool.CodeInternal, "storage state: %v", err)
			}
			path, err := fs.WriteFile(ctx, "filename", in.Filename, append(data, '\n'))
			if err != nil {
				return nil, err
			}
			origins := make([]string, len(st.Origins))
			for i, o := range st.Origins {
				origins[i] = o.Origin
			}
			return map[string]any{"path": path, "cookies": len(st.Cookies), "origins": origins}, nil
		}),
	}
}

func setStorageState() tool.Tool {
	type args struct {
		Filename string `json:"filename"`
	}
	d := def("browser_set_storage_state", "Load a storage state file (Playwright's storageState JSON, written by browser_storage_state or by Playwright) into the active session: "+
		"its cookies replace the session's, and each origin's localStorage is replaced by the file's (written without a request to the site); "+
		"navigate afterwards to see the site signed in. Returns {cookies, origins}.", true,
		schema.Object(schema.String("filename", "The JSON file"+filenameNote).Required().Min(1)))
	d.UsesRoots = true
	return tool.Tool{
		Def: d.WithPhrases("restore login state", "load storage state", "sign in from a state file", "import cookies and localStorage", "reuse an auth file", "load storageState json", "restore session from file", "apply auth.json", "start logged in from a file"),
		Run: browserRun(func(ctx context.Context, b *browser.Browser, in args) (any, error) {
			st, path, err := readStorageState(ctx, "filename", in.Filename)
			if err != nil {
				return nil, err
			}
			if err := b.ApplyStorageState(ctx, "", *st); err != nil {
				return nil, err
			}
			origins := make([]string, len(st.Origins))
			for i, o := range st.Origins {
				origins[i] = o.Origin
			}
			return map[string]any{"path": path, "cookies": len(st.Cookies), "origins": origins, "note": "loaded into the active session: navigate (or browser_reload) for the pages to read it"}, nil
		}),
	}
}

// readStorageState reads and parses the storage state file p, given in
// argument arg, inside the allowed roots; it returns the state and the
// file's path.
func readStorageState(ctx context.Context, arg, p string) (*browser.StorageState, string, error) {
	r, err := fs.NewReader(ctx)
	if err != nil {
		return nil, "", err
	}
	defer r.Close()
	f, path, err := r.Open(arg, p)
	if err != nil {
		return nil, "", err
	}
	data, err := io.ReadAll(io.LimitReader(f, maxStateBytes+1))
	f.Close()
	if err != nil {
		return nil, "", tool.Errorf(tool.CodeToolError, "read %s: %v", path, err)
	}
	if len(data) > maxStateBytes {
		return nil, "", tool.Errorf(tool.CodeInvalidArgs, "argument %q: %s is larger than %d MiB, more than a storage state holds", arg, path, maxStateBytes>>20)
	}
	st, err := browser.ParseStorageState(data)
	if err != nil {
		return nil, "", tool.Errorf(tool.CodeInvalidArgs, "argument %q: %s is not a storage state in Playwright's shape ({cookies: [{name, value, domain, path, expires, httpOnly, secure, sameSite}], origins: [{origin, localStorage: [{name, value}]}]}): %v", arg, path, err)
	}
	return st, path, nil
}
