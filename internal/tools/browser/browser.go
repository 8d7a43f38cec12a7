// Package browser holds the browser tools (browser_*): navigation, actions
// on elements found by CSS, text=, role=, xpath= or snapshot refs,
// screenshots, the accessibility snapshot, console, network and dialogs,
// tabs and isolated sessions, PDF and tracing. The engine is
// internal/browser; each tool acts on the active tab of the Igor's one
// browser, which starts on browser_launch or on first use.
package browser

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/barrhawk/barrhawk/internal/browser"
	"github.com/barrhawk/barrhawk/internal/fspath"
	"github.com/barrhawk/barrhawk/internal/schema"
	"github.com/barrhawk/barrhawk/internal/tool"
)

// Groups the tools are listed under.
const (
	Group        = "Browser"
	SessionGroup = "Browser sessions"
)

// snapshotBytes caps browser_snapshot's tree: with its header and note the
// result stays under 25,000 tokens (bytes/4) and under the default result
// bound (tools.maxResultBytes, 100,000 bytes).
const snapshotBytes = 96_000

// getTextMax is the most characters browser_get_text returns at once: in
// UTF-8 and JSON they stay under the result bound (tools.maxResultBytes).
const getTextMax = 20_000

// Tools returns the family.
func Tools() []tool.Tool {
	return WithCode([]tool.Tool{
		launch(), navigate(), click(), typeText(), screenshot(), getText(), wait(), scroll(), pressKey(), closeBrowser(),
		getElements(), snapshot(), evaluate(), consoleMessages(), networkRequests(), hover(), drag(), selectOption(),
		fileUpload(), handleDialog(), fillForm(),
		history("browser_navigate_back", "Go back one page in the tab's history.", -1,
			"back button", "history.back()", "previous page", "undo navigation", "browser back", "return to last page", "hit the browser back button"),
		history("browser_navigate_forward", "Go forward one page in the tab's history.", 1,
			"forward button", "history.forward()", "redo navigation", "browser forward", "next page in history", "go to the next page in history again"),
		history("browser_reload", "Reload the page.", 0,
			"refresh page", "f5 refresh", "reload tab", "hard refresh", "refresh browser"),
		resize(), tabs(), pdfSave(), mouseMove(), mouseClick(), mouseDrag(), mouseWheel(), startTracing(), stopTracing(),
		route(), unroute(), routeList(), networkStateSet(), emulateMedia(),
		cookieList(), cookieGet(), cookieSet(), cookieDelete(), cookieClear(), storageState(), setStorageState(),
		webStorageList(browser.LocalStorage), webStorageGet(browser.LocalStorage), webStorageSet(browser.LocalStorage), webStorageDelete(browser.LocalStorage), webStorageClear(browser.LocalStorage),
		webStorageList(browser.SessionStorage), webStorageGet(browser.SessionStorage), webStorageSet(browser.SessionStorage), webStorageDelete(browser.SessionStorage), webStorageClear(browser.SessionStorage),
		checkTool("browser_check", true), checkTool("browser_uncheck", false), pressSequentially(), keyTool("browser_keydown", true), keyTool("browser_keyup", false),
		mouseButtonTool("browser_mouse_down", true), mouseButtonTool("browser_mouse_up", false), find(),
		generateLocator(), exportTest(),
		startVideo(), videoChapter(), stopVideo(),
		sessionNew(), sessionSwitch(), sessionList(),
	})
}

func def(name, desc string, sideEffects bool, input *jsonschema.Schema) tool.Def {
	d := tool.Def{Name: name, Description: desc, Group: Group, Category: tool.CategoryBrowser, Input: input, RequiresWorker: true}
	if sideEffects {
		d.Retries = -1
	}
	return d
}

// Arguments many tools share.
func selectorArg(required bool) schema.Prop {
	p := schema.String("selector", `Element, in Playwright's selector language: CSS (#id, li:has-text("x"), :visible), text=Visible text, role=button[name="Save"], data-testid=x, xpath=//..., A >> B, nth=0, or a ref from browser_snapshot (e12)`)
	if required {
		p = p.Required().Min(1)
	}
	return p
}

func timeoutArg() schema.Prop {
	return schema.Integer("timeout", "Milliseconds to wait for the element"+browser.TimeoutZeroDoc).Default(browser.DefaultTimeout.Milliseconds()).Min(0).Max(120_000)
}

func healArg() schema.Prop {
	return schema.Boolean("selfHeal", "When the selector matches nothing, try data-testid, id, aria-label, name and visible text; the result says what matched").Default(false)
}

// findOpts builds the engine's options from the shared arguments: the
// timeout in milliseconds (nil when absent, for the default; 0 for none
// of its own) and selfHeal.
func findOpts(timeoutMs *int64, heal bool) browser.FindOptions {
	return browser.FindOptions{Timeout: browser.TimeoutArg(timeoutMs), Heal: heal}
}

// page is the active tab, launching the browser on first use.
func page(ctx context.Context, call *tool.Call) (*browser.Page, error) {
	return browser.ActivePage(ctx, call.Resources)
}

// pageRun adapts a handler on the active tab.
func pageRun[In any](f func(ctx context.Context, p *browser.Page, in In) (any, error)) tool.Handler {
	return tool.Typed(func(ctx context.Context, in In, call *tool.Call) (any, error) {
		p, err := page(ctx, call)
		if err != nil {
			return nil, err
		}
		return f(ctx, p, in)
	})
}

// located describes where an action happened.
func located(p *browser.Page, ctx context.Context, sel string, pr *browser.Probe) map[string]any {
	out := map[string]any{"selector": sel, "matched": pr.Matched, "element": pr.Element}
	if pr.Locator != nil && pr.Locator.Unique {
		// A ref or an ambiguous selector: how a test names the element.
		out["locator"] = pr.Locator.Code
	}
	if pr.Matched != sel {
		out["healed"] = true
	}
	if pr.Count > 1 {
		out["matches"] = pr.Count
	}
	if d := p.PendingDialog(); d != nil {
		out["dialog"] = map[string]any{"type": d.Type, "message": d.Message, "note": "the page opened a dialog and waits: answer it with browser_handle_dialog"}
	} else if u, ok := p.Navigating(); ok {
		// The action made the page navigate: where to (the next call
		// waits for the page).
		out["url"] = u
	} else if u, err := p.URL(ctx); err == nil {
		out["url"] = u
	}
	return out
}

// outputPath resolves a path for a file the browser tools write: inside
// the configured directory (tools.screenshotDir) only, not through a
// symbolic link leading out of it, and not onto a link; parents created.
func outputPath(arg, p string) (string, error) {
	dir, err := filepath.Abs(browser.OutputDir())
	if err != nil {
		return "", tool.Errorf(tool.CodeInternal, "the browser's output directory %s: %v", browser.OutputDir(), err)
	}
	if strings.TrimSpace(p) == "" {
		return "", tool.Errorf(tool.CodeInvalidArgs, "argument %q: a file name is required (written under %s)", arg, dir)
	}
	abs := p
	if !filepath.IsAbs(abs) {
		abs = filepath.Join(dir, p)
	}
	abs = filepath.Clean(abs)
	if !fspath.Within(abs, dir) || abs == dir {
		return "", tool.Errorf(tool.CodeForbidden, "argument %q: %s is outside the browser's output directory %s (tools.screenshotDir); give a file name relative to it, such as \"shots/page.png\"", arg, p, dir)
	}
	// A link on the way must not lead out: resolve what exists of the
	// path before creating anything.
	if real, rd := resolveExisting(filepath.Dir(abs)), resolveExisting(dir); !fspath.Within(real, rd) {
		return "", tool.Errorf(tool.CodeForbidden, "argument %q: %s leads outside %s through a symbolic link", arg, p, dir)
	}
	if fi, err := os.Lstat(abs); err == nil {
		if fi.Mode()&os.ModeSymlink != 0 {
			return "", tool.Errorf(tool.CodeForbidden, "argument %q: %s is a symbolic link; give the name of a regular file", arg, p)
		}
		if fi.IsDir() {
			return "", tool.Errorf(tool.CodeInvalidArgs, "argument %q: %s is a directory; give a file name, such as %s", arg, p, filepath.Join(p, "page.png"))
		}
	}
	if err := os.MkdirAll(filepath.Dir(abs), 0o755); err != nil {
		return "", tool.Errorf(tool.CodeToolError, "create %s: %v", filepath.Dir(abs), err)
	}
	return abs, nil
}

// resolveExisting resolves the symbolic links of the longest existing
// prefix of path and appends the rest.
func resolveExisting(path string) string {
	rest := ""
	for p := path; ; p = filepath.Dir(p) {
		if real, err := filepath.EvalSymlinks(p); err == nil {
			return filepath.Join(real, rest)
		}
		if filepath.Dir(p) == p {
			return path
		}
		rest = filepath.Join(filepath.Base(p), rest)
	}
}

func launch() tool.Tool {
	type args struct {
		Headless *bool  `json:"headless"`
		URL      string `json:"url"`
		Width    int    `json:"width"`
		Height   int    `json:"height"`
	}
	return tool.Tool{
		Def: def("browser_launch", "Start the browser (Chromium; other browser tools start one too on first use). A running one is closed first when the options differ. "+
			"Returns {launched, headless, width, height, url}.", true,
			schema.Object(
				schema.Boolean("headless", "Run without a window (default: igors.browserHeadless, true)"),
				schema.String("url", "Open this address once started"),
				schema.Integer("width", "Viewport width").Default(browser.DefaultWidth).Min(100).Max(7680),
				schema.Integer("height", "Viewport height").Default(browser.DefaultHeight).Min(100).Max(4320),
			)).
			WithPhrases("open chrome", "start headless chromium", "spin up a browser", "launch playwright", "headed mode not headless", "fire up chrome", "restart the browser", "puppeteer launch", "set viewport at startup"),
		Run: tool.Typed(func(ctx context.Context, in args, call *tool.Call) (any, error) {
			if err := call.NeedResources("browser tools"); err != nil {
				return nil, err
			}
			opts := browser.Options{Headless: browser.Headless(), Width: in.Width, Height: in.Height}
			if in.Headless != nil {
				opts.Headless = *in.Headless
			}
			if opts.Width == 0 {
				opts.Width = browser.DefaultWidth
			}
			if opts.Height == 0 {
				opts.Height = browser.DefaultHeight
			}
			call.Resources.Close(tool.KindBrowser, "browser") //nolint:errcheck // a fresh start either way
			t0 := time.Now()
			b, err := browser.Launch(ctx, opts)
			if err != nil {
				return nil, err
			}
			call.Resources.Put(tool.KindBrowser, "browser", b, b.Close)
			out := map[string]any{"launched": true, "headless": opts.Headless, "width": opts.Width, "height": opts.Height, "startMs": time.Since(t0).Milliseconds()}
			if in.URL != "" {
				p, err := b.Active()
				if err != nil {
					return nil, err
				}
				status, err := p.Navigate(ctx, in.URL)
				if err != nil {
					return nil, err
				}
				out["url"], out["status"] = in.URL, status
			}
			return out, nil
		}),
	}
}

func closeBrowser() tool.Tool {
	return tool.Tool{
		Def: def("browser_close", "Close the browser: every session and tab, and the Chromium processes. Returns {closed}.", true, schema.Object()).
			WithPhrases("quit browser", "shut down chromium", "kill chrome", "end browser", "close every tab", "teardown browser", "kill browser processes", "close browser after tests"),
		Run: tool.Typed(func(_ context.Context, _ struct{}, call *tool.Call) (any, error) {
			if err := call.NeedResources("browser tools"); err != nil {
				return nil, err
			}
			ok, err := call.Resources.Close(tool.KindBrowser, "browser")
			if err != nil {
				return nil, tool.Errorf(tool.CodeToolError, "close the browser: %v", err)
			}
			return map[string]any{"closed": ok}, nil
		}),
	}
}

func navigate() tool.Tool {
	type args struct {
		URL     string `json:"url"`
		Timeout int64  `json:"timeout"`
	}
	return tool.Tool{
		Def: def("browser_navigate", "Open a URL in the active tab and wait for it to load (its load event, up to timeout: a page whose images or scripts still load then is kept as it is, with a note). Returns {url, status, title}.", true,
			schema.Object(schema.String("url", "Address to open (http, https, file or data URL)").Required().Min(1),
				schema.Integer("timeout", "Milliseconds to wait for the page to load (within the call's own timeout, tools.defaultTimeout)").Default(browser.NavigateTimeout.Milliseconds()).Min(100).Max(120_000))).
			WithPhrases("go to url", "visit a website", "open a web page", "page.goto", "browse to site", "open localhost", "load the app in browser", "http status of page", "open the homepage", "wait for page to load"),
		Run: pageRun(func(ctx context.Context, p *browser.Page, in args) (any, error) {
			status, note, err := p.NavigateWithin(ctx, in.URL, time.Duration(in.Timeout)*time.Millisecond)
			if err != nil {
				return nil, err
			}
			u, _ := p.URL(ctx)
			title, _ := p.Title(ctx)
			out := map[string]any{"url": u, "status": status, "title": title}
			if note != "" {
				out["note"] = note
			}
			if strings.HasPrefix(u, "chrome-error:") && status >= 400 {
				// An error status with an empty body: the tab shows
				// Chromium's error page, whose address is no use.
				out["url"] = in.URL
				out["note"] = fmt.Sprintf("the server answered HTTP %d with an empty body: the tab shows Chromium's error page", status)
			}
			return out, nil
		}),
	}
}

func history(name, desc string, delta int, phrases ...string) tool.Tool {
	type args struct {
		WaitUntil string `json:"waitUntil"`
		Timeout   int64  `json:"timeout"`
	}
	return tool.Tool{
		Def: def(name, desc+" Returns {url, title}.", true, schema.Object(
			schema.String("waitUntil", "What to wait for: the new document complete (load)").Enum("load"),
			schema.Integer("timeout", "Milliseconds to wait for the page").Default(10_000).Min(100).Max(120_000))).
			WithPhrases(phrases...),
		Run: pageRun(func(ctx context.Context, p *browser.Page, in args) (any, error) {
			if err := p.History(ctx, delta, time.Duration(in.Timeout)*time.Millisecond); err != nil {
				return nil, err
			}
			u, _ := p.URL(ctx)
			title, _ := p.Title(ctx)
			return map[string]any{"url": u, "title": title}, nil
		}),
	}
}

func click() tool.Tool {
	type args struct {
		Selector   string   `json:"selector"`
		Text       string   `json:"text"`
		X          *float64 `json:"x"`
		Y          *float64 `json:"y"`
		Button     string   `json:"button"`
		ClickCount int      `json:"clickCount"`
		SelfHeal   bool     `json:"selfHeal"`
		Timeout    *int64   `json:"timeout"`
	}
	return tool.Tool{
		Def: def("browser_click", "Click an element (by selector, or by its visible text), waiting until it is visible, enabled and still; or click at x, y. "+
			"Returns {selector, matched, healed, url}.", true,
			schema.Object(selectorArg(false),
				schema.String("text", "Click the element showing this text (same as selector text=...)"),
				schema.Number("x", "Viewport x to click at (with y, instead of a selector)"),
				schema.Number("y", "Viewport y to click at"),
				schema.String("button", "Mouse button").Enum("left", "right", "middle").Default("left"),
				schema.Integer("clickCount", "2 for a double click").Default(1).Min(1).Max(3),
				healArg(), timeoutArg())).
			WithPhrases("click a button", "press a link", "tap element", "double click", "right click", "click by visible text", "self-healing selector", "click submit", "press the button", "click sign in button", "press a button on the page", "hit the button"),
		Run: pageRun(func(ctx context.Context, p *browser.Page, in args) (any, error) {
			sel := in.Selector
			if sel == "" && in.Text != "" {
				sel = "text=" + in.Text
			}
			if sel == "" {
				if in.X == nil || in.Y == nil {
					return nil, tool.Errorf(tool.CodeInvalidArgs, "browser_click needs a selector, a text, or both x and y")
				}
				if err := p.ClickXY(ctx, *in.X, *in.Y, in.Button, in.ClickCount); err != nil {
					return nil, err
				}
				return map[string]any{"x": *in.X, "y": *in.Y}, nil
			}
			pr, err := p.Click(ctx, sel, browser.ClickOptions{FindOptions: findOpts(in.Timeout, in.SelfHeal), Button: in.Button, Count: in.ClickCount})
			if err != nil {
				return nil, err
			}
			return located(p, ctx, sel, pr), nil
		}),
	}
}

func typeText() tool.Tool {
	type args struct {
		Selector   string `json:"selector"`
		Text       string `json:"text"`
		Clear      *bool  `json:"clear"`
		PressEnter bool   `json:"pressEnter"`
		SelfHeal   bool   `json:"selfHeal"`
		Timeout    *int64 `json:"timeout"`
	}
	return tool.Tool{
		Def: def("browser_type", "Type text into an input, textarea or contenteditable element (cleared first by default), optionally pressing Enter. Returns {selector, matched, url}.", true,
			schema.Object(selectorArg(true), schema.String("text", "Text to type").Required(),
				schema.Boolean("clear", "Clear the field first").Default(true),
				schema.Boolean("pressEnter", "Press Enter afterwards (submits most forms)").Default(false),
				healArg(), timeoutArg())).
			WithPhrases("type into input", "enter text in field", "fill one textbox", "type password", "search box input", "keyboard text entry", "login username field", "type email into a form", "put text into a field"),
		Run: pageRun(func(ctx context.Context, p *browser.Page, in args) (any, error) {
			clear := in.Clear == nil || *in.Clear
			pr, err := p.Type(ctx, in.Selector, in.Text, clear, in.PressEnter, findOpts(in.Timeout, in.SelfHeal))
			if err != nil {
				return nil, err
			}
			return located(p, ctx, in.Selector, pr), nil
		}),
	}
}

func getText() tool.Tool {
	type args struct {
		Selector  string `json:"selector"`
		Timeout   *int64 `json:"timeout"`
		Offset    int    `json:"offset"`
		MaxLength int    `json:"maxLength"`
	}
	return tool.Tool{
		Def: def("browser_get_text", "The visible text of an element, or of the whole page without a selector; a long text comes in parts (offset, maxLength). Returns {text, selector}.", false,
			schema.Object(selectorArg(false), timeoutArg(),
				schema.Integer("offset", "The first character to return (for the next part of a long text)").Default(0).Min(0),
				schema.Integer("maxLength", "At most this many characters").Default(getTextMax).Min(1).Max(getTextMax))).
			WithPhrases("read page text", "scrape text", "innerText", "what does the page say", "extract visible text", "page content as text", "textContent", "read error message", "what does the message say", "field validation message", "what text is displayed in an element", "words showing in a panel"),
		Run: pageRun(func(ctx context.Context, p *browser.Page, in args) (any, error) {
			s, err := p.Text(ctx, in.Selector, findOpts(in.Timeout, false))
			if err != nil {
				return nil, err
			}
			out := map[string]any{"text": s, "selector": in.Selector}
			if in.MaxLength <= 0 {
				in.MaxLength = getTextMax
			}
			if n := utf8.RuneCountInString(s); in.Offset > 0 || n > in.MaxLength {
				r := []rune(s)
				from := min(in.Offset, n)
				to := min(from+in.MaxLength, n)
				out["text"], out["offset"], out["length"] = string(r[from:to]), from, n
				if to < n {
					out["note"] = fmt.Sprintf("characters %d to %d of %d: pass offset %d for the next part, or a selector to read one part of the page", from, to, n, to)
				}
			}
			return out, nil
		}),
	}
}

func wait() tool.Tool {
	type args struct {
		Selector string `json:"selector"`
		State    string `json:"state"`
		Timeout  *int64 `json:"timeout"`
	}
	return tool.Tool{
		Def: def("browser_wait", "Wait until an element is visible, hidden, attached or detached; without a selector, wait timeout milliseconds. Returns {selector, state, waitedMs}.", false,
			schema.Object(selectorArg(false),
				schema.String("state", "What to wait for").Enum("visible", "hidden", "attached", "detached").Default("visible"),
				timeoutArg())).
			WithPhrases("wait for element", "wait until visible", "wait for spinner to disappear", "waitForSelector", "wait for loading to finish", "pause in browser", "wait until detached", "wait until removed from dom", "wait for toast to go away"),
		Run: pageRun(func(ctx context.Context, p *browser.Page, in args) (any, error) {
			t0 := time.Now()
			if in.Selector == "" {
				// Answer before the call ends (timeout 0 waits this long).
				d, _ := tool.WithinCall(ctx, browser.Bound(browser.TimeoutArg(in.Timeout), browser.DefaultTimeout))
				select {
				case <-time.After(d):
				case <-ctx.Done():
					return nil, ctx.Err()
				}
				return map[string]any{"waitedMs": time.Since(t0).Milliseconds()}, nil
			}
			o := findOpts(in.Timeout, false)
			o.State = in.State
			pr, err := p.Find(ctx, in.Selector, o)
			if err != nil {
				return nil, err
			}
			state := in.State
			if state == "" {
				state = "visible"
			}
			out := map[string]any{"selector": in.Selector, "state": state, "waitedMs": time.Since(t0).Milliseconds()}
			if pr.Locator != nil && pr.Locator.Unique && (state == "visible" || state == "attached") {
				out["locator"] = pr.Locator.Code
			}
			return out, nil
		}),
	}
}

func screenshot() tool.Tool {
	type args struct {
		FullPage bool   `json:"fullPage"`
		Selector string `json:"selector"`
		SavePath string `json:"savePath"`
		Timeout  *int64 `json:"timeout"`
	}
	return tool.Tool{
		Def: def("browser_screenshot", "Take a PNG screenshot of the viewport, the full page or one element. Returns the image, and a text part with {width, height, bytes, url, savedTo}.", false,
			schema.Object(schema.Boolean("fullPage", "The whole scrollable page").Default(false),
				selectorArg(false),
				schema.String("savePath", "Also write the PNG here, under tools.screenshotDir (e.g. \"login/after.png\")"),
				timeoutArg())).
			WithPhrases("capture page image", "snap the page", "full page png", "visual evidence", "element screenshot", "what the page looks like", "save png of page", "grab an image of element", "screenshot for bug report"),
		Run: pageRun(func(ctx context.Context, p *browser.Page, in args) (any, error) {
			img, err := p.Screenshot(ctx, in.FullPage, in.Selector, findOpts(in.Timeout, false))
			if err != nil {
				return nil, err
			}
			meta := map[string]any{"bytes": len(img), "mimeType": "image/png"}
			if w, h, ok := pngSize(img); ok {
				meta["width"], meta["height"] = w, h
			}
			if u, err := p.URL(ctx); err == nil {
				meta["url"] = u
			}
			if in.SavePath != "" {
				path, err := outputPath("savePath", in.SavePath)
				if err != nil {
					return nil, err
				}
				if err := os.WriteFile(path, img, 0o644); err != nil {
					return nil, tool.Errorf(tool.CodeToolError, "write %s: %v", path, err)
				}
				meta["savedTo"] = path
			}
			text, _ := json.Marshal(meta)
			return tool.Content{Parts: []tool.Part{tool.ImagePart(img, "image/png"), tool.TextPart(string(text))}}, nil
		}),
	}
}

// pngSize reads the width and height from a PNG's header.
func pngSize(b []byte) (int, int, bool) {
	if len(b) < 24 || string(b[1:4]) != "PNG" {
		return 0, 0, false
	}
	w := int(b[16])<<24 | int(b[17])<<16 | int(b[18])<<8 | int(b[19])
	h := int(b[20])<<24 | int(b[21])<<16 | int(b[22])<<8 | int(b[23])
	return w, h, true
}

func scroll() tool.Tool {
	type args struct {
		Direction string `json:"direction"`
		Amount    int    `json:"amount"`
		Selector  string `json:"selector"`
	}
	return tool.Tool{
		Def: def("browser_scroll", "Scroll the page (or a scrollable element) up, down, left, right, or to the top or bottom. Returns {scrollX, scrollY}.", false,
			schema.Object(schema.String("direction", "Where to scroll").Enum("up", "down", "left", "right", "top", "bottom").Required(),
				schema.Integer("amount", "Pixels").Default(500).Min(1),
				selectorArg(false))).
			WithPhrases("see below the fold", "scroll to bottom", "infinite scroll", "reveal offscreen content", "scroll a panel", "lazy load more"),
		Run: pageRun(func(ctx context.Context, p *browser.Page, in args) (any, error) {
			if in.Amount <= 0 {
				in.Amount = 500
			}
			dx, dy := 0, 0
			switch in.Direction {
			case "up":
				dy = -in.Amount
			case "down":
				dy = in.Amount
			case "left":
				dx = -in.Amount
			case "right":
				dx = in.Amount
			case "top":
				dy = -1 << 30
			case "bottom":
				dy = 1 << 30
			}
			target := "window"
			if in.Selector != "" {
				if _, err := p.Find(ctx, in.Selector, browser.FindOptions{State: "attached"}); err != nil {
					return nil, err
				}
				target = "window.__bh.pick(" + jsq(in.Selector) + ")"
			}
			raw, err := p.Evaluate(ctx, fmt.Sprintf("(() => { const t = %s; t.scrollBy(%d, %d); return t === window ? {scrollX, scrollY} : {scrollX: t.scrollLeft, scrollY: t.scrollTop}; })()", target, dx, dy), nil)
			if err != nil {
				return nil, err
			}
			return raw, nil
		}),
	}
}

func jsq(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

func pressKey() tool.Tool {
	type args struct {
		Key string `json:"key"`
	}
	return tool.Tool{
		Def: def("browser_press_key", "Press a key in the focused element: Enter, Tab, Escape, Backspace, ArrowDown, PageDown, F5, a character, or a combination (Control+a, Shift+Tab). Returns {key}.", true,
			schema.Object(schema.String("key", "Key name or combination").Required().Min(1))).
			WithPhrases("keyboard shortcut", "hit enter", "press escape", "tab key", "hotkey", "ctrl+a", "keypress", "send keys"),
		Run: pageRun(func(ctx context.Context, p *browser.Page, in args) (any, error) {
			if err := p.PressKey(ctx, in.Key); err != nil {
				return nil, err
			}
			return map[string]any{"key": in.Key}, nil
		}),
	}
}

func getElements() tool.Tool {
	type args struct {
		Selector string `json:"selector"`
		Limit    int    `json:"limit"`
	}
	return tool.Tool{
		Def: def("browser_get_elements", "List the elements a selector matches: tag, role, accessible name, text, visibility, key attributes. Returns {total, elements}.", false,
			schema.Object(selectorArg(true), schema.Integer("limit", "Most elements listed").Default(20).Min(1).Max(500))).
			WithPhrases("querySelectorAll", "find matching elements", "which elements match selector", "debug a selector", "element roles and names", "list links on page", "inspect dom elements", "list all buttons", "buttons and their labels", "attributes of form inputs", "list fields of a form", "elements matching a selector with their text", "all the links on the page with their text"),
		Run: pageRun(func(ctx context.Context, p *browser.Page, in args) (any, error) {
			if in.Limit <= 0 {
				in.Limit = 20
			}
			els, total, err := p.Elements(ctx, in.Selector, in.Limit)
			if err != nil {
				return nil, err
			}
			return map[string]any{"total": total, "elements": els}, nil
		}),
	}
}

func snapshot() tool.Tool {
	type args struct {
		Root          string `json:"root"`
		IncludeHidden bool   `json:"includeHidden"`
	}
	return tool.Tool{
		Def: def("browser_snapshot", "The page's accessibility tree as compact text: one line per element (role, name, state) with a ref such as e12 that any selector argument accepts. "+
			"Capped at about 25,000 tokens, with a note when cut (then pass root to narrow it).", false,
			schema.Object(schema.String("root", "Only this element's subtree (a selector)"), schema.Boolean("includeHidden", "Include hidden elements").Default(false))).
			WithPhrases("a11y tree", "aria snapshot", "dom snapshot", "page structure", "element refs", "what is on the page", "outline of the page", "find a selector", "an outline of what is on the page", "overview of roles and names"),
		Run: pageRun(func(ctx context.Context, p *browser.Page, in args) (any, error) {
			s, err := p.Snapshot(ctx, in.Root, in.IncludeHidden, snapshotBytes)
			if err != nil {
				return nil, err
			}
			u, _ := p.URL(ctx)
			title, _ := p.Title(ctx)
			head := fmt.Sprintf("Page: %s\nTitle: %s\nElements: %d\n", tool.Shorten(u, 1000), tool.Shorten(title, 300), s.Elements)
			text := head + s.Text
			if s.Cut {
				text += fmt.Sprintf("\n[snapshot cut at %d bytes (about %d tokens) of a larger page: pass root (a selector or a ref above) to see one part of it]", snapshotBytes, snapshotBytes/4)
			}
			return text, nil
		}),
	}
}

func evaluate() tool.Tool {
	type args struct {
		Expression string          `json:"expression"`
		Arg        json.RawMessage `json:"arg"`
	}
	return tool.Tool{
		Def: def("browser_evaluate", "Run JavaScript in the page and return its JSON value (a promise is awaited). With arg, expression is a function called with it: \"(a) => a.x * 2\".", true,
			schema.Object(schema.String("expression", "A JavaScript expression, or a function when arg is given").Required().Min(1),
				schema.Any("arg", "Passed to the function: any JSON value"))).
			WithPhrases("execute javascript", "run js in page", "eval js", "page.evaluate", "read localStorage", "document.querySelector", "inject script", "js expression result", "run code in the page", "run snippet in page"),
		Run: pageRun(func(ctx context.Context, p *browser.Page, in args) (any, error) {
			raw, err := p.Evaluate(ctx, in.Expression, in.Arg)
			if err != nil {
				return nil, err
			}
			return map[string]any{"value": raw}, nil
		}),
	}
}

func toJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// errorField returns the "error" a page script answered with, if any.
func errorField(raw json.RawMessage) string {
	var e struct {
		Error string `json:"error"`
	}
	_ = json.Unmarshal(raw, &e)
	return e.Error
}
