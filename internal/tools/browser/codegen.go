package browser

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/barrhawk/barrhawk/internal/browser"
	"github.com/barrhawk/barrhawk/internal/tool"
)

// The session as a test: every browser action and page assertion answers
// with `code`, its line of Playwright, and the steps a test repeats
// (navigations, actions, assertions that passed) are recorded on the
// session for browser_export_test. The code is built here, from the
// tool's name, its arguments and its answer (the element it acted on:
// a locator the probe generated for a snapshot ref or an ambiguous
// selector, else the selector itself), without asking the page again.

// step is what a generator makes of one call: its code, and whether the
// session's test repeats it.
type step struct {
	code   string
	record bool
}

// codeArgs are a call's arguments, decoded.
type codeArgs map[string]any

func (a codeArgs) str(k string) string {
	s, _ := a[k].(string)
	return s
}

func (a codeArgs) num(k string) (float64, bool) {
	f, ok := a[k].(float64)
	return f, ok
}

func (a codeArgs) boolean(k string) bool {
	b, _ := a[k].(bool)
	return b
}

// generator makes the step of a call from its arguments and its answer.
type generator func(a codeArgs, res map[string]any) step

// WithCode hooks code generation and recording into tools: each call of
// a tool with a generator answers with `code` beside its result, and the
// steps a test repeats are recorded on the active session. Tools without
// one are returned as they are.
func WithCode(tools []tool.Tool) []tool.Tool {
	for i := range tools {
		gen, ok := generators[tools[i].Name]
		if !ok {
			continue
		}
		name, run := tools[i].Name, tools[i].Run
		tools[i].Run = func(ctx context.Context, call *tool.Call) (any, error) {
			res, err := run(ctx, call)
			if err != nil {
				return res, err
			}
			return addCode(ctx, name, gen, call, res), nil
		}
	}
	return tools
}

// addCode puts the call's code in its answer (an object) and records it.
func addCode(ctx context.Context, name string, gen generator, call *tool.Call, res any) any {
	m, ok := res.(map[string]any)
	if raw, isRaw := res.(json.RawMessage); isRaw {
		ok = json.Unmarshal(raw, &m) == nil && m != nil
	}
	if !ok {
		return res
	}
	var a codeArgs
	if len(call.Args) > 0 {
		_ = json.Unmarshal(call.Args, &a)
	}
	if name == "assert_visible" || name == "assert_text" || name == "assert_attribute" || name == "assert_value" || name == "assert_checked" {
		if err := assertLocator(ctx, call, a, m); err != nil {
			return res
		}
	}
	if !strings.HasPrefix(name, "assert_") {
		notePopups(ctx, call, m)
	}
	st := gen(a, m)
	if st.code == "" {
		return res
	}
	if ps, ok := m["popups"].([]browser.Popup); ok {
		st.code = waitForPopups(st.code, ps)
	}
	m["code"] = st.code
	if strings.HasPrefix(name, "assert_") && m["passed"] != true {
		st.record = false // a test repeats what held
	}
	if st.record {
		if b, ok := browser.Lookup(call.Resources); ok && b != nil {
			if p, err := b.Active(); err == nil {
				// A dialog answered after the action that opened it is
				// answered, in a test, by a handler set before that action.
				before := name == "browser_handle_dialog" && m["answered"] != nil
				p.Record(browser.Step{Tool: name, Code: st.code, Before: before})
			}
		}
	}
	return m
}

// waitForPopups wraps an action's code in Playwright's wait for the
// popups it opened: each a promise made before the action, awaited after.
func waitForPopups(code string, ps []browser.Popup) string {
	var pre, post []string
	for _, p := range ps {
		pre = append(pre, "const "+p.Var+"Promise = page.waitForEvent('popup');")
		post = append(post, "const "+p.Var+" = await "+p.Var+"Promise;")
	}
	return strings.Join(pre, "\n") + "\n" + code + "\n" + strings.Join(post, "\n")
}

// notePopups puts in an action's answer the popups it opened (pages the
// page opened itself, now tabs of the session with its routes and
// emulation), once they are set up.
func notePopups(ctx context.Context, call *tool.Call, m map[string]any) {
	b, ok := browser.Lookup(call.Resources)
	if !ok || b == nil {
		return
	}
	p, err := b.Active()
	if err != nil {
		return
	}
	if ps := b.TakePopups(ctx, p); len(ps) > 0 {
		m["popups"] = ps
		m["popupNote"] = fmt.Sprintf("the page opened %d popup(s), now tab(s) of this session with its routes and emulation: act on one after browser_tabs {action: \"select\", index: %d}", len(ps), ps[0].Tab)
	}
}

// assertLocator gives an assertion on an element the generated locator
// of that element when its selector is a snapshot ref or matches several
// elements (one look at the page; an action's probe answers it already).
func assertLocator(ctx context.Context, call *tool.Call, a codeArgs, m map[string]any) error {
	sel := a.str("selector")
	if sel == "" {
		return nil
	}
	b, ok := browser.Lookup(call.Resources)
	if !ok || b == nil {
		return nil
	}
	p, err := b.Active()
	if err != nil {
		return err
	}
	loc, err := p.LocatorIfNeeded(ctx, sel)
	if err == nil && loc != nil && loc.Unique {
		m["locator"] = loc.Code
	}
	return nil
}

// generators are the Playwright lines of the tools that have one.
var generators = map[string]generator{
	"browser_navigate": func(a codeArgs, _ map[string]any) step {
		return step{"await page.goto(" + jsStr(a.str("url")) + ");", true}
	},
	"browser_launch": func(a codeArgs, _ map[string]any) step {
		if a.str("url") == "" {
			return step{}
		}
		return step{"await page.goto(" + jsStr(a.str("url")) + ");", true}
	},
	"browser_session_new": func(a codeArgs, _ map[string]any) step {
		if a.str("url") == "" {
			return step{}
		}
		return step{"await page.goto(" + jsStr(a.str("url")) + ");", true}
	},
	"browser_navigate_back":    fixed("await page.goBack();"),
	"browser_navigate_forward": fixed("await page.goForward();"),
	"browser_reload":           fixed("await page.reload();"),
	"browser_click": func(a codeArgs, res map[string]any) step {
		if a.str("selector") == "" && a.str("text") == "" {
			x, _ := a.num("x")
			y, _ := a.num("y")
			return step{"await page.mouse.click(" + num(x) + ", " + num(y) + mouseOpts(a) + ");", true}
		}
		sel := a.str("selector")
		if sel == "" {
			sel = "text=" + a.str("text")
		}
		l := elementCode(sel, res)
		var opts []string
		if b := a.str("button"); b != "" && b != "left" {
			opts = append(opts, "button: "+jsStr(b))
		}
		n, _ := a.num("clickCount")
		switch {
		case n == 2:
			return step{"await " + l + ".dblclick(" + objOpts(opts) + ");", true}
		case n > 2:
			opts = append(opts, "clickCount: "+num(n))
		}
		return step{"await " + l + ".click(" + objOpts(opts) + ");", true}
	},
	"browser_type": func(a codeArgs, res map[string]any) step {
		l := elementCode(a.str("selector"), res)
		code := "await " + l + ".fill(" + jsStr(a.str("text")) + ");"
		if c, ok := a["clear"].(bool); ok && !c {
			code = "await " + l + ".pressSequentially(" + jsStr(a.str("text")) + ");"
		}
		if a.boolean("pressEnter") {
			code += "\nawait " + l + ".press('Enter');"
		}
		return step{code, true}
	},
	"browser_press_sequentially": func(a codeArgs, res map[string]any) step {
		target := "page.keyboard"
		code := "await page.keyboard.type(" + jsStr(a.str("text")) + ");"
		if a.str("selector") != "" {
			target = elementCode(a.str("selector"), res)
			code = "await " + target + ".pressSequentially(" + jsStr(a.str("text")) + ");"
		}
		if a.boolean("submit") {
			code += "\nawait " + target + ".press('Enter');"
		}
		return step{code, true}
	},
	"browser_press_key": func(a codeArgs, _ map[string]any) step {
		return step{"await page.keyboard.press(" + jsStr(a.str("key")) + ");", true}
	},
	"browser_keydown": func(a codeArgs, _ map[string]any) step {
		return step{"await page.keyboard.down(" + jsStr(a.str("key")) + ");", true}
	},
	"browser_keyup": func(a codeArgs, _ map[string]any) step {
		return step{"await page.keyboard.up(" + jsStr(a.str("key")) + ");", true}
	},
	"browser_hover":   elementStep("hover()"),
	"browser_check":   elementStep("check()"),
	"browser_uncheck": elementStep("uncheck()"),
	"browser_drag": func(a codeArgs, _ map[string]any) step {
		return step{"await page." + selectorCode(a.str("source")) + ".dragTo(page." + selectorCode(a.str("target")) + ");", true}
	},
	"browser_select_option": func(a codeArgs, res map[string]any) step {
		l := elementCode(a.str("selector"), res)
		var v string
		switch {
		case a["values"] != nil:
			v = jsValue(a["values"])
		case a["value"] != nil:
			v = jsStr(a.str("value"))
		case a["label"] != nil:
			v = "{ label: " + jsStr(a.str("label")) + " }"
		default:
			n, _ := a.num("index")
			v = "{ index: " + num(n) + " }"
		}
		return step{"await " + l + ".selectOption(" + v + ");", true}
	},
	"browser_file_upload": func(a codeArgs, res map[string]any) step {
		return step{"await " + elementCode(a.str("selector"), res) + ".setInputFiles(" + jsValue(res["files"]) + ");", true}
	},
	"browser_fill_form": func(a codeArgs, _ map[string]any) step {
		fields, _ := a["fields"].([]any)
		var lines []string
		for _, f := range fields {
			fm, _ := f.(map[string]any)
			fa := codeArgs(fm)
			l := "page." + selectorCode(fa.str("selector"))
			switch v := fm["value"].(type) {
			case bool:
				lines = append(lines, "await "+l+".setChecked("+strconv.FormatBool(v)+");")
			default:
				if fa.str("type") == "select" {
					lines = append(lines, "await "+l+".selectOption("+jsStr(fmt.Sprint(v))+");")
				} else {
					lines = append(lines, "await "+l+".fill("+jsStr(fmt.Sprint(v))+");")
				}
			}
		}
		if s := a.str("submit"); s != "" {
			lines = append(lines, "await page."+selectorCode(s)+".click();")
		}
		return step{strings.Join(lines, "\n"), true}
	},
	"browser_wait": func(a codeArgs, res map[string]any) step {
		if a.str("selector") == "" {
			// A fixed wait: shown, never repeated by a test (its waits
			// come from its assertions).
			n, ok := a.num("timeout")
			if !ok {
				n = float64(browser.DefaultTimeout.Milliseconds())
			}
			return step{"await page.waitForTimeout(" + num(n) + ");", false}
		}
		l := elementCode(a.str("selector"), res)
		switch a.str("state") {
		case "hidden":
			return step{"await expect(" + l + ").toBeHidden();", true}
		case "attached":
			return step{"await expect(" + l + ").toBeAttached();", true}
		case "detached":
			return step{"await expect(" + l + ").toHaveCount(0);", true}
		}
		return step{"await expect(" + l + ").toBeVisible();", true}
	},
	"browser_scroll": func(a codeArgs, _ map[string]any) step {
		amount, ok := a.num("amount")
		if !ok {
			amount = 500
		}
		dx, dy := 0.0, 0.0
		switch a.str("direction") {
		case "up":
			dy = -amount
		case "down":
			dy = amount
		case "left":
			dx = -amount
		case "right":
			dx = amount
		case "top":
			dy = -1e6
		case "bottom":
			dy = 1e6
		}
		if s := a.str("selector"); s != "" {
			return step{"await page." + selectorCode(s) + ".evaluate((e) => e.scrollBy(" + num(dx) + ", " + num(dy) + "));", true}
		}
		return step{"await page.evaluate(() => window.scrollBy(" + num(dx) + ", " + num(dy) + "));", true}
	},
	"browser_resize": func(a codeArgs, _ map[string]any) step {
		w, _ := a.num("width")
		h, _ := a.num("height")
		return step{"await page.setViewportSize({ width: " + num(w) + ", height: " + num(h) + " });", true}
	},
	"browser_evaluate": func(a codeArgs, _ map[string]any) step {
		if arg, ok := a["arg"]; ok {
			return step{"await page.evaluate(" + a.str("expression") + ", " + jsValue(arg) + ");", true}
		}
		return step{"await page.evaluate(" + jsStr(a.str("expression")) + ");", true}
	},
	"browser_mouse_move": func(a codeArgs, _ map[string]any) step {
		x, _ := a.num("x")
		y, _ := a.num("y")
		opts := ""
		if n, ok := a.num("steps"); ok && n > 1 {
			opts = ", { steps: " + num(n) + " }"
		}
		return step{"await page.mouse.move(" + num(x) + ", " + num(y) + opts + ");", true}
	},
	"browser_mouse_click": func(a codeArgs, _ map[string]any) step {
		x, _ := a.num("x")
		y, _ := a.num("y")
		return step{"await page.mouse.click(" + num(x) + ", " + num(y) + mouseOpts(a) + ");", true}
	},
	"browser_mouse_down": func(a codeArgs, _ map[string]any) step {
		return step{"await page.mouse.down(" + buttonOpt(a) + ");", true}
	},
	"browser_mouse_up": func(a codeArgs, _ map[string]any) step {
		return step{"await page.mouse.up(" + buttonOpt(a) + ");", true}
	},
	"browser_mouse_wheel": func(a codeArgs, _ map[string]any) step {
		dx, _ := a.num("deltaX")
		dy, _ := a.num("deltaY")
		return step{"await page.mouse.wheel(" + num(dx) + ", " + num(dy) + ");", true}
	},
	"browser_mouse_drag": func(a codeArgs, _ map[string]any) step {
		fx, _ := a.num("fromX")
		fy, _ := a.num("fromY")
		tx, _ := a.num("toX")
		ty, _ := a.num("toY")
		n, ok := a.num("steps")
		if !ok {
			n = 10
		}
		return step{fmt.Sprintf("await page.mouse.move(%s, %s);\nawait page.mouse.down();\nawait page.mouse.move(%s, %s, { steps: %s });\nawait page.mouse.up();", num(fx), num(fy), num(tx), num(ty), num(n)), true}
	},
	"browser_screenshot": func(a codeArgs, _ map[string]any) step {
		var opts []string
		if a.boolean("fullPage") {
			opts = append(opts, "fullPage: true")
		}
		if p := a.str("savePath"); p != "" {
			opts = append(opts, "path: "+jsStr(p))
		}
		target := "page"
		if s := a.str("selector"); s != "" {
			target = "page." + selectorCode(s)
		}
		return step{"await " + target + ".screenshot(" + objOpts(opts) + ");", false}
	},
	"browser_emulate_media": func(a codeArgs, _ map[string]any) step {
		var opts []string
		for _, k := range []string{"colorScheme", "reducedMotion", "forcedColors", "media"} {
			if v, ok := a[k]; ok {
				opts = append(opts, k+": "+jsValue(v))
			}
		}
		return step{"await page.emulateMedia(" + objOpts(opts) + ");", true}
	},
	"browser_network_state_set": func(a codeArgs, _ map[string]any) step {
		return step{"await page.context().setOffline(" + strconv.FormatBool(a.str("state") == "offline") + ");", true}
	},
	"browser_route": func(a codeArgs, _ map[string]any) step {
		var opts []string
		if n, ok := a.num("status"); ok {
			opts = append(opts, "status: "+num(n))
		}
		if v := a.str("contentType"); v != "" {
			opts = append(opts, "contentType: "+jsStr(v))
		}
		if hs, ok := a["headers"].([]any); ok && len(hs) > 0 {
			// "Name: value" lines, as Playwright's object.
			h := map[string]string{}
			for _, line := range hs {
				if k, v, ok := strings.Cut(fmt.Sprint(line), ":"); ok {
					h[strings.TrimSpace(k)] = strings.TrimSpace(v)
				}
			}
			opts = append(opts, "headers: "+jsonText(h))
		}
		if v, ok := a["body"]; ok {
			if _, isStr := v.(string); !isStr {
				v = jsonText(v)
			}
			opts = append(opts, "body: "+jsValue(v))
		}
		return step{"await page.route(" + jsStr(a.str("pattern")) + ", (route) => route.fulfill(" + objOpts(opts) + "));", true}
	},
	"browser_unroute": func(a codeArgs, _ map[string]any) step {
		if p := a.str("pattern"); p != "" {
			return step{"await page.unroute(" + jsStr(p) + ");", true}
		}
		return step{"await page.unrouteAll();", true}
	},
	"browser_localstorage_set":     storageSet("localStorage"),
	"browser_sessionstorage_set":   storageSet("sessionStorage"),
	"browser_localstorage_clear":   fixed("await page.evaluate(() => localStorage.clear());"),
	"browser_sessionstorage_clear": fixed("await page.evaluate(() => sessionStorage.clear());"),
	"browser_cookie_clear":         fixed("await page.context().clearCookies();"),

	"browser_tabs": func(a codeArgs, res map[string]any) step {
		tabs, _ := res["tabs"].([]browser.TabInfo)
		active := "page"
		for _, t := range tabs {
			if t.Active {
				active = t.Var
			}
		}
		switch a.str("action") {
		case "new": // recorded in the new tab: page is it
			code := "const " + active + " = await context.newPage();"
			if u := a.str("url"); u != "" {
				code += "\nawait page.goto(" + jsStr(u) + ");"
			}
			return step{code, true}
		case "select":
			return step{"await page.bringToFront();", true}
		case "close":
			if v, _ := res["closed"].(string); v != "" {
				return step{"await " + v + ".close();", true}
			}
		}
		return step{}
	},
	"browser_handle_dialog": func(a codeArgs, res map[string]any) step {
		answer := "dialog.dismiss()"
		if a.str("action") == "accept" {
			answer = "dialog.accept()"
			if t := a.str("promptText"); t != "" {
				answer = "dialog.accept(" + jsStr(t) + ")"
			}
		}
		if rule, ok := a["autoRespond"].(bool); ok && rule {
			// A standing rule (addCode puts it before the action when it
			// also answered the dialog that action opened).
			return step{"page.on('dialog', (dialog) => " + answer + ");", true}
		}
		if res["answered"] != nil {
			return step{"page.once('dialog', (dialog) => " + answer + ");", true}
		}
		return step{}
	},

	// The page assertions, as Playwright's web-first assertions.
	"assert_visible": func(a codeArgs, res map[string]any) step {
		return step{"await expect(" + elementCode(a.str("selector"), res) + ").toBeVisible();", true}
	},
	"assert_hidden": func(a codeArgs, _ map[string]any) step {
		return step{"await expect(page." + selectorCode(a.str("selector")) + ").toBeHidden();", true}
	},
	"assert_text": func(a codeArgs, res map[string]any) step {
		l := elementCode(a.str("selector"), res)
		want, opts := expected(a, "contains"), ""
		if a.boolean("ignoreCase") && a.str("mode") != "matches" {
			opts = ", { ignoreCase: true }"
		}
		switch a.str("mode") {
		case "equals", "matches":
			return step{"await expect(" + l + ").toHaveText(" + want + opts + ");", true}
		}
		return step{"await expect(" + l + ").toContainText(" + want + opts + ");", true}
	},
	"assert_url": func(a codeArgs, res map[string]any) step {
		want := expected(a, "equals")
		if (a.str("mode") == "" || a.str("mode") == "equals") && !a.boolean("ignoreCase") {
			// What the page showed: a path alone is compared with the
			// page's own origin here, and a test has no base URL.
			if u, ok := res["actual"].(string); ok && res["passed"] == true {
				want = jsStr(u)
			}
		}
		return step{"await expect(page).toHaveURL(" + want + ");", true}
	},
	"assert_title": func(a codeArgs, _ map[string]any) step {
		return step{"await expect(page).toHaveTitle(" + expected(a, "equals") + ");", true}
	},
	"assert_count": func(a codeArgs, _ map[string]any) step {
		l := "page." + selectorCode(a.str("selector"))
		var lines []string
		if n, ok := a.num("equals"); ok {
			lines = append(lines, "await expect("+l+").toHaveCount("+num(n)+");")
		}
		if n, ok := a.num("min"); ok && n > 0 {
			lines = append(lines, "await expect("+l+".nth("+num(n-1)+")).toBeAttached();")
		}
		if n, ok := a.num("max"); ok {
			lines = append(lines, "await expect("+l+".nth("+num(n)+")).toHaveCount(0);")
		}
		return step{strings.Join(lines, "\n"), true}
	},
	"assert_value": func(a codeArgs, res map[string]any) step {
		l := elementCode(a.str("selector"), res)
		switch {
		case a["value"] != nil:
			return step{"await expect(" + l + ").toHaveValue(" + jsStr(a.str("value")) + ");", true}
		case a["contains"] != nil:
			return step{"await expect(" + l + ").toHaveValue(/" + regexpLiteral(regexp.QuoteMeta(a.str("contains"))) + "/);", true}
		}
		return step{"await expect(" + l + ").toHaveValue(/" + regexpLiteral(a.str("matches")) + "/);", true}
	},
	"assert_checked": func(a codeArgs, res map[string]any) step {
		l := elementCode(a.str("selector"), res)
		if c, ok := a["checked"].(bool); ok && !c {
			return step{"await expect(" + l + ").not.toBeChecked();", true}
		}
		return step{"await expect(" + l + ").toBeChecked();", true}
	},
	"assert_attribute": func(a codeArgs, res map[string]any) step {
		l := elementCode(a.str("selector"), res)
		name := jsStr(a.str("name"))
		if _, ok := a["value"]; !ok {
			return step{"await expect(" + l + ").toHaveAttribute(" + name + ");", true}
		}
		v := a.str("value")
		switch a.str("mode") {
		case "contains":
			return step{"await expect(" + l + ").toHaveAttribute(" + name + ", /" + regexpLiteral(regexp.QuoteMeta(v)) + "/);", true}
		case "matches":
			return step{"await expect(" + l + ").toHaveAttribute(" + name + ", /" + regexpLiteral(v) + "/);", true}
		}
		return step{"await expect(" + l + ").toHaveAttribute(" + name + ", " + jsStr(v) + ");", true}
	},
}

// fixed is a generator of one line.
func fixed(code string) generator {
	return func(codeArgs, map[string]any) step { return step{code, true} }
}

// elementStep is a generator of one call on the element acted on.
func elementStep(call string) generator {
	return func(a codeArgs, res map[string]any) step {
		return step{"await " + elementCode(a.str("selector"), res) + "." + call + ";", true}
	}
}

func storageSet(area string) generator {
	return func(a codeArgs, _ map[string]any) step {
		return step{"await page.evaluate(([k, v]) => " + area + ".setItem(k, v), [" + jsStr(a.str("key")) + ", " + jsStr(a.str("value")) + "]);", true}
	}
}

// expected is an assertion's expected value as Playwright takes it: a
// string for equals (mode's default dflt), a regular expression for
// contains and matches.
func expected(a codeArgs, dflt string) string {
	mode := a.str("mode")
	if mode == "" {
		mode = dflt
	}
	want := a.str("expected")
	flags := ""
	if a.boolean("ignoreCase") {
		flags = "i"
	}
	switch mode {
	case "matches":
		return "/" + regexpLiteral(want) + "/" + flags
	case "contains":
		if flags == "" && dflt == "contains" {
			return jsStr(want) // toContainText
		}
		return "/" + regexpLiteral(regexp.QuoteMeta(want)) + "/" + flags
	}
	if flags != "" && dflt == "equals" {
		return "/^" + regexpLiteral(regexp.QuoteMeta(want)) + "$/i"
	}
	return jsStr(want)
}

// regexpLiteral makes a pattern the body of a JavaScript /.../ literal.
func regexpLiteral(p string) string {
	var b strings.Builder
	escaped := false
	for _, r := range p {
		switch {
		case escaped:
			escaped = false
		case r == '\\':
			escaped = true
		case r == '/':
			b.WriteByte('\\')
		case r == '\n':
			b.WriteString(`\n`)
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

func mouseOpts(a codeArgs) string {
	var opts []string
	if b := a.str("button"); b != "" && b != "left" {
		opts = append(opts, "button: "+jsStr(b))
	}
	if n, ok := a.num("clickCount"); ok && n > 1 {
		opts = append(opts, "clickCount: "+num(n))
	}
	if len(opts) == 0 {
		return ""
	}
	return ", " + objOpts(opts)
}

func buttonOpt(a codeArgs) string {
	if b := a.str("button"); b != "" && b != "left" {
		return "{ button: " + jsStr(b) + " }"
	}
	return ""
}

func objOpts(opts []string) string {
	if len(opts) == 0 {
		return ""
	}
	return "{ " + strings.Join(opts, ", ") + " }"
}

func num(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }

// jsValue writes a JSON value as JavaScript (JSON is; a string is
// single-quoted, as Playwright writes them).
func jsValue(v any) string {
	if s, ok := v.(string); ok {
		return jsStr(s)
	}
	return jsonText(v)
}

func jsonText(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// jsStr quotes s as a JavaScript string in single quotes, as Playwright's
// code generator writes them.
func jsStr(s string) string {
	var b strings.Builder
	b.WriteByte('\'')
	for _, r := range s {
		switch r {
		case '\\':
			b.WriteString(`\\`)
		case '\'':
			b.WriteString(`\'`)
		case '\n':
			b.WriteString(`\n`)
		case '\r':
			b.WriteString(`\r`)
		case '\u2028':
			b.WriteString(`\u2028`)
		case '\u2029':
			b.WriteString(`\u2029`)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('\'')
	return b.String()
}

// elementCode is the locator of the element an action took, as code
// starting at page: the locator the probe generated for it (for a
// snapshot ref or a selector matching several elements), else the
// selector that matched (a healed one), else the selector given.
func elementCode(sel string, res map[string]any) string {
	if l, ok := res["locator"].(string); ok && l != "" {
		return "page." + l
	}
	if m, ok := res["matched"].(string); ok && m != "" {
		sel = m
	}
	return "page." + selectorCode(sel)
}

// selectorCode writes a selector of Playwright's language as Playwright
// code (without page.): getByRole, getByText, getByLabel, getByTestId,
// getByPlaceholder, getByAltText, getByTitle, filter and nth for the
// parts that are those, locator('...') for the rest (Playwright reads its
// selector language there). A selector whose parts are not all of those
// kinds is one locator('...').
func selectorCode(sel string) string {
	sel = strings.TrimSpace(sel)
	parts := splitParts(sel)
	var out []string
	for i, p := range parts {
		c, ok := partCode(strings.TrimSpace(p), i == 0)
		if !ok {
			return "locator(" + jsStr(sel) + ")"
		}
		out = append(out, c)
	}
	if len(out) == 0 {
		return "locator(" + jsStr(sel) + ")"
	}
	return strings.Join(out, ".")
}

// splitParts splits a selector at >> outside quotes, brackets and
// parentheses.
func splitParts(s string) []string {
	var out []string
	depth, start := 0, 0
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '\\':
			i++
		case c == '"' || c == '\'':
			for i++; i < len(s) && s[i] != c; i++ {
				if s[i] == '\\' {
					i++
				}
			}
		case c == '(' || c == '[':
			depth++
		case c == ')' || c == ']':
			depth--
		case depth == 0 && strings.HasPrefix(s[i:], ">>"):
			out = append(out, s[start:i])
			start = i + 2
			i++
		}
	}
	return append(out, s[start:])
}

var (
	rolePart   = regexp.MustCompile(`^(?:internal:)?role=([a-z]+)(.*)$`)
	roleAttr   = regexp.MustCompile(`^\[\s*([a-z-]+)\s*(?:=\s*(.+?))?\s*\]`)
	quotedPart = regexp.MustCompile(`^"((?:[^"\\]|\\.)*)"([is]?)$`)
	attrPart   = regexp.MustCompile(`^internal:(attr|testid)=\[([\w:-]+)=("(?:[^"\\]|\\.)*")([is]?)\]$`)
	simpleText = regexp.MustCompile(`^[^"'/].*$`)
	nthPart    = regexp.MustCompile(`^nth=(-?\d+)$`)
	engineName = regexp.MustCompile(`^[\w:+-]+=`)
	snapRef    = regexp.MustCompile(`^(?:ref=)?e\d+$`)
)

// unquoteSel reads a "quoted" value of a selector (backslash escapes).
func unquoteSel(q string) string {
	s := q[1 : len(q)-1]
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) {
			i++
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// partCode writes one part of a selector as Playwright code; false when
// it is not a kind with a method of its own (first says it is the first
// part: filter and nth cannot start a locator).
func partCode(p string, first bool) (string, bool) {
	if m := nthPart.FindStringSubmatch(p); m != nil {
		if first {
			return "", false
		}
		switch m[1] {
		case "0":
			return "first()", true
		case "-1":
			return "last()", true
		}
		return "nth(" + m[1] + ")", true
	}
	if v, ok := strings.CutPrefix(p, "internal:has-text="); ok && !first {
		if q := quotedPart.FindStringSubmatch(v); q != nil && q[2] != "s" {
			return "filter({ hasText: " + jsStr(unquoteSel(`"`+q[1]+`"`)) + " })", true
		}
		return "", false
	}
	if m := rolePart.FindStringSubmatch(p); m != nil {
		return roleCode(m[1], m[2])
	}
	for prefix, method := range map[string]string{"internal:text=": "getByText", "internal:label=": "getByLabel"} {
		if v, ok := strings.CutPrefix(p, prefix); ok {
			q := quotedPart.FindStringSubmatch(v)
			if q == nil || q[2] == "" {
				return "", false
			}
			return method + "(" + jsStr(unquoteSel(`"`+q[1]+`"`)) + exactOpt(q[2] == "s") + ")", true
		}
	}
	if v, ok := strings.CutPrefix(p, "text="); ok && simpleText.MatchString(v) {
		return "getByText(" + jsStr(strings.TrimSpace(v)) + ")", true
	}
	if m := attrPart.FindStringSubmatch(p); m != nil {
		val := unquoteSel(m[3])
		if m[1] == "testid" {
			if m[2] != browser.TestIDAttribute() {
				return "", false
			}
			return "getByTestId(" + jsStr(val) + ")", true
		}
		method := map[string]string{"placeholder": "getByPlaceholder", "alt": "getByAltText", "title": "getByTitle"}[m[2]]
		if method == "" || m[4] == "" {
			return "", false
		}
		return method + "(" + jsStr(val) + exactOpt(m[4] == "s") + ")", true
	}
	if v, ok := strings.CutPrefix(p, "data-testid="); ok && browser.TestIDAttribute() == "data-testid" {
		v = strings.TrimSpace(v)
		if len(v) > 1 && (v[0] == '"' || v[0] == '\'') && v[len(v)-1] == v[0] {
			v = unquoteSel(v)
		}
		return "getByTestId(" + jsStr(v) + ")", true
	}
	if snapRef.MatchString(p) {
		return "", false
	}
	if engineName.MatchString(p) && !strings.HasPrefix(p, "css=") {
		// Another engine (xpath=, id=, ...): Playwright reads it in locator().
		return "locator(" + jsStr(p) + ")", true
	}
	return "locator(" + jsStr(strings.TrimPrefix(p, "css=")) + ")", true
}

func exactOpt(exact bool) string {
	if exact {
		return ", { exact: true }"
	}
	return ""
}

// roleCode writes role=ROLE[attrs] as getByRole.
func roleCode(role, attrs string) (string, bool) {
	var opts []string
	for attrs = strings.TrimSpace(attrs); attrs != ""; attrs = strings.TrimSpace(attrs) {
		m := roleAttr.FindStringSubmatch(attrs)
		if m == nil {
			return "", false
		}
		// The value may hold ]: read a quoted one to its end.
		key, val := m[1], m[2]
		rest := attrs[len(m[0]):]
		if strings.HasPrefix(val, `"`) {
			end := quotedEnd(attrs[strings.Index(attrs, `"`):])
			if end < 0 {
				return "", false
			}
			q := attrs[strings.Index(attrs, `"`):][:end+1]
			after := attrs[strings.Index(attrs, `"`)+end+1:]
			flag := ""
			if len(after) > 0 && (after[0] == 'i' || after[0] == 's') {
				flag, after = after[:1], after[1:]
			}
			after = strings.TrimSpace(after)
			if !strings.HasPrefix(after, "]") || key != "name" {
				return "", false
			}
			rest = after[1:]
			opts = append(opts, "name: "+jsStr(unquoteSel(q)))
			if flag == "s" {
				opts = append(opts, "exact: true")
			}
			attrs = rest
			continue
		}
		switch {
		case key == "name" && strings.HasPrefix(val, "/"):
			opts = append(opts, "name: "+val)
		case key == "level" && val != "":
			opts = append(opts, "level: "+val)
		case val == "" || val == "true" || val == "false":
			js := map[string]string{"checked": "checked", "disabled": "disabled", "expanded": "expanded", "pressed": "pressed", "selected": "selected", "include-hidden": "includeHidden"}[key]
			if js == "" {
				return "", false
			}
			opts = append(opts, js+": "+map[bool]string{true: "true", false: "false"}[val != "false"])
		default:
			return "", false
		}
		attrs = rest
	}
	if len(opts) == 0 {
		return "getByRole(" + jsStr(role) + ")", true
	}
	return "getByRole(" + jsStr(role) + ", { " + strings.Join(opts, ", ") + " })", true
}

// quotedEnd is the index of the quote closing the string s starts with.
func quotedEnd(s string) int {
	for i := 1; i < len(s); i++ {
		switch s[i] {
		case '\\':
			i++
		case '"':
			return i
		}
	}
	return -1
}
