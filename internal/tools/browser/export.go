package browser

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/barrhawk/barrhawk/internal/browser"
	"github.com/barrhawk/barrhawk/internal/schema"
	"github.com/barrhawk/barrhawk/internal/tool"
	"github.com/barrhawk/barrhawk/internal/tools/fs"
)

// specName is what Playwright Test runs by default: name.spec.ts,
// name.test.js, ...
var specName = regexp.MustCompile(`\.(spec|test)\.[cm]?[jt]sx?$`)

func exportTest() tool.Tool {
	type args struct {
		Filename string `json:"filename"`
		Name     string `json:"name"`
		Session  string `json:"session"`
	}
	d := def("browser_export_test", "Write the browser session as a Playwright Test file (.spec.ts): its navigations, actions and the page assertions that passed (assert_* as expect(...) with Playwright's web-first assertions), "+
		"in the order done, each the line its answer's code showed; waits come from the assertions, never from sleeps (a browser_wait of a fixed time is left out). "+
		"Without filename the file's text is answered inline. Returns {path, steps, bytes, code}.", false,
		schema.Object(
			schema.String("filename", "Write the test here (e.g. \"tests/login.spec.ts\"): relative to the server's working directory, inside the allowed roots; without it, the text is answered"),
			schema.String("name", "The test's title").Default("recorded session"),
			schema.String("session", "The browser session to export (default: the active one)"),
		)).
		WithPhrases("generate playwright test", "export session as test", "save test file", "codegen", "record and replay", "turn my steps into a spec", "write a .spec.ts", "playwright test from actions", "persist test script", "regression test from session")
	d.UsesRoots = true
	return tool.Tool{
		Def: d,
		Run: tool.Typed(func(ctx context.Context, in args, call *tool.Call) (any, error) {
			if err := call.NeedResources("browser tools"); err != nil {
				return nil, err
			}
			b, ok := browser.Lookup(call.Resources)
			if !ok || b == nil {
				return nil, tool.Errorf(tool.CodeNotFound, "no browser runs in this worker, so no session was recorded: open a page with browser_navigate, act and assert, then export")
			}
			steps, session, err := b.Steps(in.Session)
			if err != nil {
				return nil, err
			}
			if len(steps) == 0 {
				return nil, tool.Errorf(tool.CodeNotFound, "nothing was recorded in browser session %q yet: navigations, actions and passing assert_* calls are; do them first, then export", session)
			}
			name := in.Name
			if strings.TrimSpace(name) == "" {
				name = "recorded session"
			}
			text := specText(name, steps)
			out := map[string]any{"steps": len(steps), "session": session, "bytes": len(text)}
			if in.Filename == "" {
				out["code"] = text
				return out, nil
			}
			path, err := fs.WriteFile(ctx, "filename", in.Filename, []byte(text))
			if err != nil {
				return nil, err
			}
			out["path"] = path
			if !specName.MatchString(path) {
				out["note"] = fmt.Sprintf("%s does not end in .spec.ts or .test.ts, so `npx playwright test` does not find it by default: name it so, or set testMatch in playwright.config", path)
			}
			return out, nil
		}),
	}
}

// specText is the Playwright Test file of the steps: each step's code
// written for the variable of its tab (page, page1, popup1, ...), a
// dialog's answer before the action that opened it, and the test's
// context among its fixtures when a step opens a tab.
func specText(name string, steps []browser.Step) string {
	var order []browser.Step
	for _, st := range steps {
		at := len(order)
		if st.Before {
			for i := len(order) - 1; i >= 0; i-- {
				if order[i].Page == st.Page && !order[i].Before && !strings.HasPrefix(order[i].Tool, "assert_") {
					at = i
					break
				}
			}
		}
		order = slices.Insert(order, at, st)
	}
	fixtures := "page"
	var body strings.Builder
	for _, st := range order {
		code := retarget(st.Code, st.Page)
		if strings.Contains(code, "context.newPage()") {
			fixtures = "page, context"
		}
		for _, line := range strings.Split(code, "\n") {
			body.WriteString("  " + line + "\n")
		}
	}
	var b strings.Builder
	b.WriteString("import { test, expect } from '@playwright/test';\n\n")
	fmt.Fprintf(&b, "test(%s, async ({ %s }) => {\n", jsStr(name), fixtures)
	b.WriteString(body.String())
	b.WriteString("});\n")
	return b.String()
}

// retarget writes code, written for the variable page, for the variable
// v: each page. outside string literals becomes v. (popup1Promise and
// 'page.html' stay as they are).
func retarget(code, v string) string {
	if v == "" || v == "page" {
		return code
	}
	var b strings.Builder
	var quote byte // the open string literal's quote, or 0
	for i := 0; i < len(code); i++ {
		c := code[i]
		switch {
		case quote != 0:
			if c == '\\' && i+1 < len(code) {
				b.WriteByte(c)
				i++
				c = code[i]
			} else if c == quote {
				quote = 0
			}
		case c == '\'' || c == '"' || c == '`':
			quote = c
		case strings.HasPrefix(code[i:], "page.") && (i == 0 || !isIdent(code[i-1])):
			b.WriteString(v)
			i += len("page") - 1
			continue
		}
		b.WriteByte(c)
	}
	return b.String()
}

// isIdent says whether c can be part of a JavaScript identifier (or
// follows a dot: x.page.y is a property, not the variable).
func isIdent(c byte) bool {
	return c == '_' || c == '$' || c == '.' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}
