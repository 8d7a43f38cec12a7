// Package browserassert holds the assertions on the browser's active page
// (assert_visible, assert_hidden, assert_text, assert_url, assert_title,
// assert_count, assert_attribute, assert_value, assert_checked) and
// accessibility_audit. Like the other assertions, a failed one is a
// result {passed: false, expected, actual, message}, not an error, with a
// screenshot of the page saved beside it; each looks again until it
// passes or its timeout ends, as Playwright's expect does.
package browserassert

import (
	"context"
	"fmt"
	neturl "net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/barrhawk/barrhawk/internal/browser"
	"github.com/barrhawk/barrhawk/internal/schema"
	"github.com/barrhawk/barrhawk/internal/tool"
	"github.com/barrhawk/barrhawk/internal/tools/assert"
	browsertools "github.com/barrhawk/barrhawk/internal/tools/browser"
)

// Tools returns the family.
func Tools() []tool.Tool {
	asserts := []tool.Tool{visible(), hidden(), text(), url(), title(), count(), attribute(), value(), checked()}
	for i := range asserts {
		asserts[i].Description += " A failure also saves a PNG of the page (its path in screenshot)."
	}
	// Each answers with its line of Playwright (an expect), recorded on
	// the session for browser_export_test when it passed.
	return browsertools.WithCode(append(asserts, audit()))
}

// defaultTimeout is how long an assertion keeps looking.
const defaultTimeout = 5 * time.Second

func def(name, desc string, input *jsonschema.Schema) tool.Def {
	return tool.Def{Name: name, Description: desc, Group: assert.Group, Category: tool.CategoryBrowser, Input: input, RequiresWorker: true}
}

func selectorArg() schema.Prop {
	return schema.String("selector", `Element, in Playwright's selector language: CSS (li:has-text("x")), text=..., role=button[name="Save"], data-testid=x, xpath=..., A >> B, or a snapshot ref (e12)`).Required().Min(1)
}

func timeoutArg() schema.Prop {
	return schema.Integer("timeout", "Milliseconds to keep looking before failing"+browser.TimeoutZeroDoc).Default(defaultTimeout.Milliseconds()).Min(0).Max(120_000)
}

// outcome is one look: whether it passed and what was found.
type outcome struct {
	passed bool
	actual any
}

// until looks until check passes or the timeout ends (timeoutMs in
// milliseconds: nil for the default, 0 for as long as the call may), and
// reports the last look. Errors of the page (not a failed check) end it at
// once.
func until(ctx context.Context, timeoutMs *int64, check func() (outcome, error)) (outcome, time.Duration, error) {
	// When the call ends first, answer with what was found before it does.
	d, _ := tool.WithinCall(ctx, browser.Bound(browser.TimeoutArg(timeoutMs), defaultTimeout))
	t0 := time.Now()
	deadline := t0.Add(d)
	for {
		o, err := check()
		if err != nil || o.passed || time.Now().After(deadline) {
			return o, time.Since(t0), err
		}
		select {
		case <-ctx.Done():
			return o, time.Since(t0), ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// result is the answer every browser assertion gives. A failed one also
// has a screenshot of the page as the assertion last saw it, saved under
// the browser's output directory (the record shows it as the failure's
// evidence), as Playwright keeps one for a failed test.
func result(ctx context.Context, p *browser.Page, name string, o outcome, waited time.Duration, expected any, pass, fail string) map[string]any {
	out := map[string]any{"passed": o.passed, "expected": expected, "actual": o.actual, "message": pass, "waitedMs": waited.Milliseconds()}
	if !o.passed {
		out["message"] = fail
		if path, err := failureShot(ctx, p, name); err == nil {
			out["screenshot"] = path
		} else {
			out["screenshotError"] = err.Error()
		}
	}
	return out
}

// shotTimeout bounds the failure screenshot: a page too busy to capture
// must not hold the answer up.
const shotTimeout = 3 * time.Second

// failureShot saves the viewport as <output dir>/failures/<tool>-<time>.png.
func failureShot(ctx context.Context, p *browser.Page, name string) (string, error) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), shotTimeout)
	defer cancel()
	png, err := p.Screenshot(ctx, false, "", browser.FindOptions{})
	if err != nil {
		return "", fmt.Errorf("no screenshot of the failure: %w", err)
	}
	dir, err := filepath.Abs(filepath.Join(browser.OutputDir(), "failures"))
	if err != nil {
		return "", fmt.Errorf("no screenshot of the failure: %w", err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", fmt.Errorf("no screenshot of the failure: %w", err)
	}
	path := filepath.Join(dir, fmt.Sprintf("%s-%s.png", name, time.Now().UTC().Format("20060102T150405.000000000")))
	if err := os.WriteFile(path, png, 0o644); err != nil {
		return "", fmt.Errorf("no screenshot of the failure: %w", err)
	}
	return path, nil
}

// runOn adapts a handler on the active page.
func runOn[In any](f func(ctx context.Context, p *browser.Page, in In) (any, error)) tool.Handler {
	return tool.Typed(func(ctx context.Context, in In, call *tool.Call) (any, error) {
		p, err := browser.ActivePage(ctx, call.Resources)
		if err != nil {
			return nil, err
		}
		return f(ctx, p, in)
	})
}

// element looks once at sel's element: absent when no element matches,
// else read's outcome. An INVALID_ARGS error of read (the element is not
// of the kind asserted) ends the looking; another (the element went
// meanwhile) is a look that found it absent.
func element(ctx context.Context, p *browser.Page, sel string, absent any, read func() (outcome, error)) (outcome, error) {
	pr, err := probe(ctx, p, sel)
	if err != nil || pr.Count == 0 {
		return outcome{actual: absent}, err
	}
	o, err := read()
	if err != nil {
		if te, ok := err.(*tool.Error); ok && te.Code == tool.CodeInvalidArgs {
			return outcome{}, err
		}
		return outcome{actual: absent}, nil
	}
	return o, nil
}

// probe looks at a selector once.
func probe(ctx context.Context, p *browser.Page, sel string) (*browser.Probe, error) {
	pr, err := p.Find(ctx, sel, browser.FindOptions{State: "attached", Timeout: time.Millisecond})
	if err != nil {
		if te, ok := err.(*tool.Error); ok && te.Code == tool.CodeElementNotFound {
			return &browser.Probe{}, nil
		}
		return nil, err
	}
	return pr, nil
}

func visible() tool.Tool {
	type args struct {
		Selector string `json:"selector"`
		Timeout  *int64 `json:"timeout"`
	}
	return tool.Tool{
		Def: def("assert_visible", "Assert that an element is visible on the page (waiting up to timeout). A failure is a result. Returns {passed, expected, actual, message}.",
			schema.Object(selectorArg(), timeoutArg())).
			WithPhrases("element is shown", "expect visible", "is displayed", "toBeVisible", "element appears", "verify element on screen", "button shows up", "banner shows up", "banner is showing"),
		Run: runOn(func(ctx context.Context, p *browser.Page, in args) (any, error) {
			o, waited, err := until(ctx, in.Timeout, func() (outcome, error) {
				pr, err := probe(ctx, p, in.Selector)
				if err != nil {
					return outcome{}, err
				}
				state := "not found"
				if pr.Count > 0 {
					state = map[bool]string{true: "visible", false: "hidden"}[pr.Visible]
				}
				return outcome{passed: pr.Count > 0 && pr.Visible, actual: state}, nil
			})
			if err != nil {
				return nil, err
			}
			return result(ctx, p, "assert_visible", o, waited, "visible", fmt.Sprintf("%s is visible", in.Selector), fmt.Sprintf("%s is %s, expected visible", in.Selector, o.actual)), nil
		}),
	}
}

func hidden() tool.Tool {
	type args struct {
		Selector string `json:"selector"`
		Timeout  *int64 `json:"timeout"`
	}
	return tool.Tool{
		Def: def("assert_hidden", "Assert that an element is hidden or absent (waiting up to timeout). A failure is a result. Returns {passed, expected, actual, message}.",
			schema.Object(selectorArg(), timeoutArg())).
			WithPhrases("element is gone", "not visible", "toBeHidden", "spinner disappeared", "element absent", "modal closed", "expect not present", "not shown on page", "banner is hidden", "no longer displayed"),
		Run: runOn(func(ctx context.Context, p *browser.Page, in args) (any, error) {
			o, waited, err := until(ctx, in.Timeout, func() (outcome, error) {
				pr, err := probe(ctx, p, in.Selector)
				if err != nil {
					return outcome{}, err
				}
				state := "not found"
				if pr.Count > 0 {
					state = map[bool]string{true: "visible", false: "hidden"}[pr.Visible]
				}
				return outcome{passed: pr.Count == 0 || !pr.Visible, actual: state}, nil
			})
			if err != nil {
				return nil, err
			}
			return result(ctx, p, "assert_hidden", o, waited, "hidden", fmt.Sprintf("%s is %s", in.Selector, o.actual), fmt.Sprintf("%s is visible, expected hidden", in.Selector)), nil
		}),
	}
}

// match compares a text by mode: contains (default), equals or matches (a
// regular expression).
func match(mode, want string, ignoreCase bool) (func(string) bool, error) {
	switch mode {
	case "", "contains":
		if ignoreCase {
			w := strings.ToLower(want)
			return func(s string) bool { return strings.Contains(strings.ToLower(s), w) }, nil
		}
		return func(s string) bool { return strings.Contains(s, want) }, nil
	case "equals":
		return func(s string) bool {
			s = strings.TrimSpace(s)
			if ignoreCase {
				return strings.EqualFold(s, strings.TrimSpace(want))
			}
			return s == strings.TrimSpace(want)
		}, nil
	case "matches":
		expr := want
		if ignoreCase {
			expr = "(?i)" + expr
		}
		re, err := regexp.Compile(expr)
		if err != nil {
			return nil, tool.Errorf(tool.CodeInvalidArgs, "argument \"expected\": %q is not a regular expression (RE2): %v", want, err)
		}
		return re.MatchString, nil
	}
	return nil, tool.Errorf(tool.CodeInvalidArgs, "argument \"mode\": %q; use contains, equals or matches", mode)
}

func modeArg() schema.Prop {
	return schema.String("mode", "How to compare").Enum("contains", "equals", "matches").Default("contains")
}

func text() tool.Tool {
	type args struct {
		Selector   string `json:"selector"`
		Expected   string `json:"expected"`
		Mode       string `json:"mode"`
		IgnoreCase bool   `json:"ignoreCase"`
		Timeout    *int64 `json:"timeout"`
	}
	return tool.Tool{
		Def: def("assert_text", "Assert an element's visible text: contains (default), equals, or matches a regular expression (waiting up to timeout). A failure is a result with the text found.",
			schema.Object(selectorArg(), schema.String("expected", "The text (or pattern)").Required(), modeArg(),
				schema.Boolean("ignoreCase", "Compare case-insensitively").Default(false), timeoutArg())).
			WithPhrases("element text contains", "verify label text", "toHaveText", "heading says", "h1 text is", "element text matches regex", "expect error message", "text is exactly", "cell text equals", "an element reads a value"),
		Run: runOn(func(ctx context.Context, p *browser.Page, in args) (any, error) {
			ok, err := match(in.Mode, in.Expected, in.IgnoreCase)
			if err != nil {
				return nil, err
			}
			o, waited, err := until(ctx, in.Timeout, func() (outcome, error) {
				return element(ctx, p, in.Selector, nil, func() (outcome, error) {
					s, err := p.Text(ctx, in.Selector, browser.FindOptions{Timeout: time.Millisecond})
					return outcome{passed: ok(s), actual: s}, err
				})
			})
			if err != nil {
				return nil, err
			}
			mode := in.Mode
			if mode == "" {
				mode = "contains"
			}
			fail := fmt.Sprintf("the text of %s is %q, expected it to %s %q", in.Selector, o.actual, verb(mode), in.Expected)
			if o.actual == nil {
				fail = fmt.Sprintf("%s matched no element, expected its text to %s %q", in.Selector, verb(mode), in.Expected)
			}
			return result(ctx, p, "assert_text", o, waited, in.Expected, fmt.Sprintf("the text of %s %ss %q", in.Selector, strings.TrimSuffix(verb(mode), " to"), in.Expected), fail), nil
		}),
	}
}

func verb(mode string) string {
	switch mode {
	case "equals":
		return "equal"
	case "matches":
		return "match"
	}
	return "contain"
}

// pageValue asserts a value of the page. With paths, an expected value
// equal to a path (/welcome?x=1) is compared with the URL's path, query
// and fragment: the page's own origin is implied, as a link's href does.
func pageValue(name, what string, paths bool, get func(ctx context.Context, p *browser.Page) (string, error), phrases ...string) tool.Tool {
	type args struct {
		Expected   string `json:"expected"`
		Mode       string `json:"mode"`
		IgnoreCase bool   `json:"ignoreCase"`
		Timeout    *int64 `json:"timeout"`
	}
	modeDefault := "equals"
	return tool.Tool{
		Def: def(name, fmt.Sprintf("Assert the page's %s: equals (default), contains, or matches a regular expression (waiting up to timeout, as for a redirect). A failure is a result with the %s found.", what, what),
			schema.Object(schema.String("expected", expectedDesc(what, paths)).Required(),
				schema.String("mode", "How to compare").Enum("equals", "contains", "matches").Default(modeDefault),
				schema.Boolean("ignoreCase", "Compare case-insensitively").Default(false), timeoutArg())).
			WithPhrases(phrases...),
		Run: runOn(func(ctx context.Context, p *browser.Page, in args) (any, error) {
			if in.Mode == "" {
				in.Mode = modeDefault
			}
			ok, err := match(in.Mode, in.Expected, in.IgnoreCase)
			if err != nil {
				return nil, err
			}
			path := paths && in.Mode == "equals" && strings.HasPrefix(strings.TrimSpace(in.Expected), "/") && !strings.HasPrefix(strings.TrimSpace(in.Expected), "//")
			o, waited, err := until(ctx, in.Timeout, func() (outcome, error) {
				s, err := get(ctx, p)
				if err != nil {
					return outcome{}, err
				}
				if path {
					return outcome{passed: ok(pathOf(s)), actual: s}, nil
				}
				return outcome{passed: ok(s), actual: s}, nil
			})
			if err != nil {
				return nil, err
			}
			return result(ctx, p, name, o, waited, in.Expected, fmt.Sprintf("the %s %ss %q", what, verb(in.Mode), in.Expected),
				fmt.Sprintf("the %s is %q, expected it to %s %q", what, o.actual, verb(in.Mode), in.Expected)), nil
		}),
	}
}

// expectedDesc describes the expected argument of pageValue.
func expectedDesc(what string, paths bool) string {
	if paths {
		return "The URL (http://localhost:3000/welcome), or with equals a path on the page's own origin (/welcome?x=1), or a pattern"
	}
	return "The " + what + " (or pattern)"
}

// pathOf is a URL from its path on: path, query and fragment.
func pathOf(s string) string {
	u, err := neturl.Parse(s)
	if err != nil || u.Host == "" {
		return s
	}
	p := u.RequestURI()
	if u.Fragment != "" {
		p += "#" + u.EscapedFragment()
	}
	return p
}

func url() tool.Tool {
	return pageValue("assert_url", "URL", true, func(ctx context.Context, p *browser.Page) (string, error) { return p.URL(ctx) },
		"redirected to", "current url is", "toHaveURL", "landed on page", "location href", "route after login", "path after redirect")
}

func title() tool.Tool {
	return pageValue("assert_title", "title", false, func(ctx context.Context, p *browser.Page) (string, error) { return p.Title(ctx) },
		"page title is", "document.title", "toHaveTitle", "tab title", "html title tag", "title after navigation", "what the browser tab says", "name of the page in the tab")
}

func count() tool.Tool {
	type args struct {
		Selector string `json:"selector"`
		Equals   *int   `json:"equals"`
		Min      *int   `json:"min"`
		Max      *int   `json:"max"`
		Timeout  *int64 `json:"timeout"`
	}
	return tool.Tool{
		Def: def("assert_count", "Assert how many elements a selector matches: equals, or within min and max (waiting up to timeout). A failure is a result with the count found.",
			schema.Object(selectorArg(), schema.Integer("equals", "Exactly this many").Min(0), schema.Integer("min", "At least this many").Min(0),
				schema.Integer("max", "At most this many").Min(0), timeoutArg())).
			WithPhrases("number of elements", "how many rows", "list has n items", "toHaveCount", "table row count", "at least n results", "exactly n elements", "only one element matches", "how many elements on page", "number of cards shown"),
		Run: runOn(func(ctx context.Context, p *browser.Page, in args) (any, error) {
			if in.Equals == nil && in.Min == nil && in.Max == nil {
				return nil, tool.Errorf(tool.CodeInvalidArgs, "assert_count needs equals, min or max")
			}
			var want []string
			if in.Equals != nil {
				want = append(want, fmt.Sprintf("exactly %d", *in.Equals))
			}
			if in.Min != nil {
				want = append(want, fmt.Sprintf("at least %d", *in.Min))
			}
			if in.Max != nil {
				want = append(want, fmt.Sprintf("at most %d", *in.Max))
			}
			expected := strings.Join(want, " and ")
			o, waited, err := until(ctx, in.Timeout, func() (outcome, error) {
				n, err := p.Count(ctx, in.Selector)
				if err != nil {
					return outcome{}, err
				}
				ok := (in.Equals == nil || n == *in.Equals) && (in.Min == nil || n >= *in.Min) && (in.Max == nil || n <= *in.Max)
				return outcome{passed: ok, actual: n}, nil
			})
			if err != nil {
				return nil, err
			}
			return result(ctx, p, "assert_count", o, waited, expected, fmt.Sprintf("%s matches %v elements (%s)", in.Selector, o.actual, expected),
				fmt.Sprintf("%s matches %v elements, expected %s", in.Selector, o.actual, expected)), nil
		}),
	}
}

func attribute() tool.Tool {
	type args struct {
		Selector string  `json:"selector"`
		Name     string  `json:"name"`
		Value    *string `json:"value"`
		Mode     string  `json:"mode"`
		Timeout  *int64  `json:"timeout"`
	}
	return tool.Tool{
		Def: def("assert_attribute", "Assert an element's attribute: present (without value), or its value equals, contains or matches (waiting up to timeout). A failure is a result with the value found.",
			schema.Object(selectorArg(), schema.String("name", "Attribute name (href, aria-expanded, disabled, ...)").Required().Min(1),
				schema.String("value", "Expected value; omit to check only that the attribute is present"),
				schema.String("mode", "How to compare the value").Enum("equals", "contains", "matches").Default("equals"), timeoutArg())).
			WithPhrases("has attribute", "href equals", "aria-expanded", "disabled button", "toHaveAttribute", "class attribute", "link target", "data attribute value", "img alt text", "alt attribute equals", "the button should be disabled", "href must end in", "has aria-disabled"),
		Run: runOn(func(ctx context.Context, p *browser.Page, in args) (any, error) {
			if in.Mode == "" {
				in.Mode = "equals"
			}
			ok := func(string) bool { return true }
			expected := "present"
			if in.Value != nil {
				var err error
				if ok, err = match(in.Mode, *in.Value, false); err != nil {
					return nil, err
				}
				expected = *in.Value
			}
			o, waited, err := until(ctx, in.Timeout, func() (outcome, error) {
				return element(ctx, p, in.Selector, "no element", func() (outcome, error) {
					v, err := p.Attribute(ctx, in.Selector, in.Name, browser.FindOptions{Timeout: time.Millisecond})
					if err != nil || v == nil {
						return outcome{actual: nil}, err
					}
					return outcome{passed: ok(*v), actual: *v}, nil
				})
			})
			if err != nil {
				return nil, err
			}
			fail := fmt.Sprintf("%s's %s is %q, expected %s", in.Selector, in.Name, o.actual, expected)
			switch o.actual {
			case nil:
				fail = fmt.Sprintf("%s has no attribute %s, expected %s", in.Selector, in.Name, expected)
			case "no element":
				fail = fmt.Sprintf("%s matched no element", in.Selector)
			}
			return result(ctx, p, "assert_attribute", o, waited, expected, fmt.Sprintf("%s's %s is %v", in.Selector, in.Name, o.actual), fail), nil
		}),
	}
}
