package browserassert

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/barrhawk/barrhawk/internal/browser"
	"github.com/barrhawk/barrhawk/internal/schema"
	"github.com/barrhawk/barrhawk/internal/tool"
)

// The form assertions: a field's value (assert_value, Playwright's
// toHaveValue) and a checkbox's state (assert_checked, toBeChecked).

func value() tool.Tool {
	type args struct {
		Selector string  `json:"selector"`
		Value    *string `json:"value"`
		Contains *string `json:"contains"`
		Matches  *string `json:"matches"`
		Timeout  *int64  `json:"timeout"`
	}
	return tool.Tool{
		Def: def("assert_value", "Assert the value of an input, textarea or select (or a label's field): equal to value, containing contains, or matching the regular expression matches; give one of them (waiting up to timeout). A failure is a result with the value found. Returns {passed, expected, actual, message}.",
			schema.Object(selectorArg(),
				schema.String("value", "The whole value expected"),
				schema.String("contains", "Text the value contains"),
				schema.String("matches", "A regular expression (RE2) the value matches"), timeoutArg())).
			WithPhrases("input value is", "toHaveValue", "field contains text", "textbox has value", "selected option value", "what is typed in the field", "form field value equals", "textarea content", "input prefilled with", "input still holds", "field should read"),
		Run: runOn(func(ctx context.Context, p *browser.Page, in args) (any, error) {
			mode, want, err := oneOf(map[string]*string{"value": in.Value, "contains": in.Contains, "matches": in.Matches})
			if err != nil {
				return nil, err
			}
			ok, err := match(map[string]string{"value": "equals", "contains": "contains", "matches": "matches"}[mode], want, false)
			if err != nil {
				return nil, tool.Errorf(tool.CodeInvalidArgs, "argument %q: %q is not a regular expression (RE2): %v", mode, want, errorOf(err))
			}
			if mode == "value" { // the whole value, spaces too, as toHaveValue
				ok = func(s string) bool { return s == want }
			}
			o, waited, err := until(ctx, in.Timeout, func() (outcome, error) {
				return element(ctx, p, in.Selector, nil, func() (outcome, error) {
					v, err := p.InputValue(ctx, in.Selector, browser.FindOptions{Timeout: time.Millisecond})
					return outcome{passed: ok(v), actual: v}, err
				})
			})
			if err != nil {
				return nil, err
			}
			how := map[string]string{"value": "equal", "contains": "contain", "matches": "match"}[mode]
			fail := fmt.Sprintf("the value of %s is %q, expected it to %s %q", in.Selector, o.actual, how, want)
			if o.actual == nil {
				fail = fmt.Sprintf("%s matched no element, expected its value to %s %q", in.Selector, how, want)
			}
			return result(ctx, p, "assert_value", o, waited, want, fmt.Sprintf("the value of %s %ss %q", in.Selector, how, want), fail), nil
		}),
	}
}

// oneOf is the one argument of several given (its name and value), or an
// INVALID_ARGS error saying which to give.
func oneOf(args map[string]*string) (string, string, error) {
	var given []string
	name, val := "", ""
	for _, n := range []string{"value", "contains", "matches"} {
		if v := args[n]; v != nil {
			given = append(given, n)
			name, val = n, *v
		}
	}
	if len(given) != 1 {
		return "", "", tool.Errorf(tool.CodeInvalidArgs, "assert_value takes one of value (the whole value), contains or matches (a regular expression); it got %d (%s)", len(given), strings.Join(given, ", "))
	}
	return name, val, nil
}

// errorOf is the message of a tool error without its code.
func errorOf(err error) string {
	if te, ok := err.(*tool.Error); ok {
		return te.Message
	}
	return err.Error()
}

func checked() tool.Tool {
	type args struct {
		Selector string `json:"selector"`
		Checked  *bool  `json:"checked"`
		Timeout  *int64 `json:"timeout"`
	}
	return tool.Tool{
		Def: def("assert_checked", "Assert a checkbox, radio button or switch is ticked, or with checked false that it is not (waiting up to timeout); its label, or an element with role checkbox, radio or switch, stands for it. A failure is a result with the state found. Returns {passed, expected, actual, message}.",
			schema.Object(selectorArg(), schema.Boolean("checked", "The state expected: true (checked) or false (unchecked)").Default(true), timeoutArg())).
			WithPhrases("expect checkbox to be checked", "toBeChecked", "radio button is selected", "assert checkbox state", "not.toBeChecked", "toggle switch is on"),
		Run: runOn(func(ctx context.Context, p *browser.Page, in args) (any, error) {
			want := in.Checked == nil || *in.Checked
			state := map[bool]string{true: "checked", false: "unchecked"}
			o, waited, err := until(ctx, in.Timeout, func() (outcome, error) {
				return element(ctx, p, in.Selector, "no element", func() (outcome, error) {
					c, err := p.Checked(ctx, in.Selector, browser.FindOptions{Timeout: time.Millisecond})
					return outcome{passed: c == want, actual: state[c]}, err
				})
			})
			if err != nil {
				return nil, err
			}
			fail := fmt.Sprintf("%s is %s, expected %s", in.Selector, o.actual, state[want])
			if o.actual == "no element" {
				fail = fmt.Sprintf("%s matched no element, expected it %s", in.Selector, state[want])
			}
			return result(ctx, p, "assert_checked", o, waited, state[want], fmt.Sprintf("%s is %s", in.Selector, state[want]), fail), nil
		}),
	}
}
