// Package assert holds the assertion tools: assert_equals, assert_contains,
// assert_truthy, assert_type, assert_range and assert_json_schema.
//
// An assertion that does not hold is not a tool error: every tool returns
// {passed, message, ...details}, with a message that says exactly what
// differed. Tool errors (INVALID_ARGS) are for arguments that cannot be
// used at all, such as an invalid JSON Schema.
package assert

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/barrhawk/barrhawk/internal/jsondiff"
	"github.com/barrhawk/barrhawk/internal/schema"
	"github.com/barrhawk/barrhawk/internal/tool"
)

// Group is the heading these tools are listed under.
const Group = "Assertions"

// Tools returns the family's tools, in the order they are listed.
func Tools() []tool.Tool {
	return []tool.Tool{
		assertEquals(),
		assertContains(),
		assertTruthy(),
		assertType(),
		assertRange(),
		assertJSONSchema(),
	}
}

// messageWidth is how much of a value a message shows.
const messageWidth = 80

// maxListed is how many differences a message lists before "and N more".
const maxListed = 10

// show writes a value for a message.
func show(v any) string { return jsondiff.Format(v, messageWidth) }

func assertEquals() tool.Tool {
	type args struct {
		Actual   json.RawMessage `json:"actual"`
		Expected json.RawMessage `json:"expected"`
		Strict   bool            `json:"strict"`
	}
	return tool.Tool{
		Def: tool.Def{
			Name: "assert_equals",
			Description: "Assert that two JSON values are deeply equal. Key order never matters, arrays compare by index, " +
				"numbers by value; unless strict, 1 equals \"1\" and true \"true\". A failed assertion is a result, not an " +
				"error: {passed, message, differences: [{path, type, expected, actual}], ...}.",
			Phrases:  []string{"expect toEqual", "deep equal", "expected equals actual", "assertEqual", "deepStrictEqual", "same json values", "response equals expected", "fail unless the body is exactly"},
			Group:    Group,
			Category: tool.CategoryUtility,
			Input: schema.Object(
				schema.Any("actual", "Any JSON value to test").Required(),
				schema.Any("expected", "Any JSON value it should equal").Required(),
				schema.Boolean("strict", "Require the same JSON types").Default(false),
			),
			RequiresWorker: true,
			Quick:          true,
		},
		Run: tool.Typed(func(_ context.Context, in args, _ *tool.Call) (any, error) {
			actual, err := jsondiff.DecodeArg("actual", in.Actual)
			if err != nil {
				return nil, err
			}
			expected, err := jsondiff.DecodeArg("expected", in.Expected)
			if err != nil {
				return nil, err
			}
			diffs := jsondiff.Diff(expected, actual, jsondiff.Options{Loose: !in.Strict})
			msg := "values are equal"
			if !in.Strict {
				msg += " (loose comparison)"
			}
			if len(diffs) > 0 {
				msg = describe(diffs)
				if in.Strict && jsondiff.Equal(expected, actual, jsondiff.Options{Loose: true}) {
					msg += " (they are equal under loose comparison, strict=false)"
				}
			} else {
				diffs = []jsondiff.Difference{}
			}
			return map[string]any{
				"passed":      len(diffs) == 0,
				"message":     msg,
				"strict":      in.Strict,
				"expected":    expected,
				"actual":      actual,
				"differences": diffs,
			}, nil
		}),
	}
}

// describe lists differences for a message: "2 differences: $.a: ...; $.b: ...".
func describe(diffs []jsondiff.Difference) string {
	var b strings.Builder
	if len(diffs) == 1 {
		b.WriteString("1 difference: ")
	} else {
		fmt.Fprintf(&b, "%d differences: ", len(diffs))
	}
	for i, d := range diffs {
		if i == maxListed {
			fmt.Fprintf(&b, "; and %d more", len(diffs)-maxListed)
			break
		}
		if i > 0 {
			b.WriteString("; ")
		}
		b.WriteString(d.String())
	}
	return b.String()
}

func assertContains() tool.Tool {
	type args struct {
		Text          string `json:"text"`
		Substring     string `json:"substring"`
		CaseSensitive *bool  `json:"caseSensitive"`
	}
	return tool.Tool{
		Def: tool.Def{
			Name: "assert_contains",
			Description: "Assert that a text contains a substring, case-sensitively by default. An empty substring " +
				"is always contained. A failed assertion is a result, not an error. Returns {passed, message, " +
				"substring, caseSensitive, index}: index is the character (Unicode code point) offset of the " +
				"first match, -1 when there is none.",
			Phrases:  []string{"string includes substring", "expect toContain", "output mentions a phrase", "log contains line", "response body contains", "substring in plain text", "the body has a text in it", "has to include a text"},
			Group:    Group,
			Category: tool.CategoryUtility,
			Input: schema.Object(
				schema.String("text", "The text to search").Required(),
				schema.String("substring", "The text that must occur in it").Required(),
				schema.Boolean("caseSensitive", "Match letter case exactly; false folds case (\"É\" matches \"é\")").Default(true),
			),
			RequiresWorker: true,
		},
		Run: tool.Typed(func(_ context.Context, in args, _ *tool.Call) (any, error) {
			caseSensitive := in.CaseSensitive == nil || *in.CaseSensitive
			idx := index(in.Text, in.Substring, caseSensitive)
			var msg string
			switch {
			case idx >= 0:
				msg = fmt.Sprintf("text contains %s at index %d", show(in.Substring), idx)
			default:
				msg = fmt.Sprintf("text %s does not contain %s", show(in.Text), show(in.Substring))
				if caseSensitive {
					if i := index(in.Text, in.Substring, false); i >= 0 {
						msg += fmt.Sprintf(" (it does ignoring case, at index %d; set caseSensitive=false)", i)
					}
				}
			}
			return map[string]any{
				"passed":        idx >= 0,
				"message":       msg,
				"substring":     in.Substring,
				"caseSensitive": caseSensitive,
				"index":         idx,
			}, nil
		}),
	}
}

func assertTruthy() tool.Tool {
	type args struct {
		Value json.RawMessage `json:"value"`
	}
	return tool.Tool{
		Def: tool.Def{
			Name: "assert_truthy",
			Description: "Assert that a JSON value is truthy as JavaScript sees it: false, 0, \"\" and null are falsy; " +
				"everything else, empty arrays and objects included, is truthy. A failed assertion is a result, " +
				"not an error. Returns {passed, message, value, type} where type is the value's JSON type " +
				"(null, boolean, number, string, array or object).",
			Phrases:  []string{"is not null", "is true", "not empty or zero", "expect toBeTruthy", "value exists", "assert ok", "falsy"},
			Group:    Group,
			Category: tool.CategoryUtility,
			Input: schema.Object(
				schema.Any("value", "The value to test: any JSON value").Required(),
			),
			RequiresWorker: true,
			Quick:          true,
		},
		Run: tool.Typed(func(_ context.Context, in args, _ *tool.Call) (any, error) {
			v, err := jsondiff.DecodeArg("value", in.Value)
			if err != nil {
				return nil, err
			}
			typ := jsondiff.TypeOf(v)
			truthy := jsondiff.Truthy(v)
			msg := fmt.Sprintf("value %s (%s) is truthy", show(v), typ)
			if !truthy {
				msg = fmt.Sprintf("value %s (%s) is falsy; the falsy values are false, 0, \"\" and null", show(v), typ)
			}
			return map[string]any{"passed": truthy, "message": msg, "value": v, "type": typ}, nil
		}),
	}
}

// typeNames are the types assert_type accepts.
var typeNames = []any{"string", "number", "integer", "boolean", "object", "array", "null"}

func assertType() tool.Tool {
	type args struct {
		Value        json.RawMessage `json:"value"`
		ExpectedType string          `json:"expectedType"`
	}
	return tool.Tool{
		Def: tool.Def{
			Name: "assert_type",
			Description: "Assert the JSON type of a value: string, number, integer, boolean, object, array or null. " +
				"As in JSON Schema, \"integer\" is a number with no fractional part (3 and 3.0) and \"number\" " +
				"accepts integers too. A failed assertion is a result, not an error. Returns {passed, message, " +
				"expectedType, actualType, value}; actualType is the most specific type (integer for 3, number for 3.5).",
			Phrases:  []string{"is a string", "typeof", "is a number", "is an array", "json type check", "is integer", "expect type of", "is an object", "array or object", "value has the right type", "not the expected type"},
			Group:    Group,
			Category: tool.CategoryUtility,
			Input: schema.Object(
				schema.Any("value", "The value to test: any JSON value").Required(),
				schema.String("expectedType", "The type the value must have").Enum(typeNames...).Required(),
			),
			RequiresWorker: true,
			Quick:          true,
		},
		Run: tool.Typed(func(_ context.Context, in args, _ *tool.Call) (any, error) {
			v, err := jsondiff.DecodeArg("value", in.Value)
			if err != nil {
				return nil, err
			}
			actual := jsondiff.TypeOf(v)
			if d, ok := jsondiff.NumberOf(v); ok && d.IsInteger() {
				actual = "integer"
			}
			passed := actual == in.ExpectedType || (in.ExpectedType == "number" && actual == "integer")
			var msg string
			switch {
			case !passed:
				msg = fmt.Sprintf("expected type %s, got %s %s", in.ExpectedType, actual, show(v))
			case actual != in.ExpectedType:
				msg = fmt.Sprintf("value %s has type %s (an integer)", show(v), in.ExpectedType)
			default:
				msg = fmt.Sprintf("value %s has type %s", show(v), actual)
			}
			return map[string]any{
				"passed":       passed,
				"message":      msg,
				"expectedType": in.ExpectedType,
				"actualType":   actual,
				"value":        v,
			}, nil
		}),
	}
}

func assertRange() tool.Tool {
	type args struct {
		Value     json.Number `json:"value"`
		Min       json.Number `json:"min"`
		Max       json.Number `json:"max"`
		Inclusive *bool       `json:"inclusive"`
	}
	return tool.Tool{
		Def: tool.Def{
			Name: "assert_range",
			Description: "Assert that a number lies within bounds: value >= min and value <= max, or strictly " +
				"inside them with inclusive=false. Give min, max or both; numbers compare exactly, however large. " +
				"A failed assertion is a result, not an error. Returns {passed, message, value, min, max, " +
				"inclusive, range}, where range is in interval notation such as \"[1, 10]\" or \"(0, +∞)\".",
			Phrases:  []string{"between min and max", "within limits", "less than", "greater than", "at most", "response time under", "toBeGreaterThan", "number in interval", "score within range", "value between bounds"},
			Group:    Group,
			Category: tool.CategoryUtility,
			Input: schema.Object(
				schema.Number("value", "The number to test").Required(),
				schema.Number("min", "Lower bound; omit for none (at least one of min and max is required)"),
				schema.Number("max", "Upper bound; omit for none (at least one of min and max is required)"),
				schema.Boolean("inclusive", "Whether the bounds themselves are in range").Default(true),
			),
			RequiresWorker: true,
			Quick:          true,
		},
		Run: tool.Typed(func(_ context.Context, in args, _ *tool.Call) (any, error) {
			inclusive := in.Inclusive == nil || *in.Inclusive
			v, err := number("value", in.Value)
			if err != nil {
				return nil, err
			}
			if in.Min == "" && in.Max == "" {
				return nil, tool.Errorf(tool.CodeInvalidArgs, `arguments "min" and "max" are both missing: give at least one bound`)
			}
			out := map[string]any{"value": in.Value, "inclusive": inclusive}
			lo, hi := "(-∞", "+∞)"
			open, closing := "(", ")"
			if inclusive {
				open, closing = "[", "]"
			}
			var minD, maxD *jsondiff.Decimal
			if in.Min != "" {
				d, err := number("min", in.Min)
				if err != nil {
					return nil, err
				}
				minD, lo = &d, open+in.Min.String()
				out["min"] = in.Min
			}
			if in.Max != "" {
				d, err := number("max", in.Max)
				if err != nil {
					return nil, err
				}
				maxD, hi = &d, in.Max.String()+closing
				out["max"] = in.Max
			}
			if minD != nil && maxD != nil && minD.Cmp(*maxD) > 0 {
				return nil, tool.Errorf(tool.CodeInvalidArgs, "argument \"min\" (%s) is greater than \"max\" (%s): min must be <= max", in.Min, in.Max)
			}
			rng := lo + ", " + hi
			msg := fmt.Sprintf("value %s is within %s", in.Value, rng)
			passed := true
			switch {
			case minD != nil && v.Cmp(*minD) < 0:
				passed, msg = false, fmt.Sprintf("value %s is less than min %s; range is %s", in.Value, in.Min, rng)
			case minD != nil && v.Cmp(*minD) == 0 && !inclusive:
				passed, msg = false, fmt.Sprintf("value %s equals min %s, which is excluded (inclusive=false); range is %s", in.Value, in.Min, rng)
			case maxD != nil && v.Cmp(*maxD) > 0:
				passed, msg = false, fmt.Sprintf("value %s is greater than max %s; range is %s", in.Value, in.Max, rng)
			case maxD != nil && v.Cmp(*maxD) == 0 && !inclusive:
				passed, msg = false, fmt.Sprintf("value %s equals max %s, which is excluded (inclusive=false); range is %s", in.Value, in.Max, rng)
			}
			out["passed"], out["message"], out["range"] = passed, msg, rng
			return out, nil
		}),
	}
}

// number parses the number argument name.
func number(name string, n json.Number) (jsondiff.Decimal, error) {
	d, ok := jsondiff.ParseDecimal(n.String())
	if !ok {
		return d, tool.Errorf(tool.CodeInvalidArgs, "argument %q: expected a number, got %q", name, n.String())
	}
	return d, nil
}

// index returns the character offset of the first occurrence of sub in s,
// or -1. Without caseSensitive, letters match under Unicode simple case
// folding, as strings.EqualFold does.
func index(s, sub string, caseSensitive bool) int {
	if caseSensitive {
		i := strings.Index(s, sub)
		if i < 0 {
			return -1
		}
		return utf8.RuneCountInString(s[:i])
	}
	n := 0
	for i := range s {
		if hasPrefixFold(s[i:], sub) {
			return n
		}
		n++
	}
	if sub == "" {
		return n
	}
	return -1
}

// hasPrefixFold reports whether s starts with prefix under simple case
// folding.
func hasPrefixFold(s, prefix string) bool {
	for _, p := range prefix {
		r, size := utf8.DecodeRuneInString(s)
		if size == 0 || !foldEqual(r, p) {
			return false
		}
		s = s[size:]
	}
	return true
}

// foldEqual reports whether r and p are the same letter up to case.
func foldEqual(r, p rune) bool {
	if r == p {
		return true
	}
	for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
		if f == p {
			return true
		}
	}
	return false
}
