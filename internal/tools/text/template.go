package text

import (
	"bytes"
	"context"
	"encoding/json"
	"regexp"
	"strconv"
	"strings"

	"github.com/barrhawk/barrhawk/internal/schema"
	"github.com/barrhawk/barrhawk/internal/tool"
)

// placeholder matches {{path}}: path segments without whitespace, dots or
// braces, joined by dots, with optional whitespace inside the braces.
var placeholder = regexp.MustCompile(`\{\{\s*([^\s{}.]+(?:\.[^\s{}.]+)*)\s*\}\}`)

// templateResult is what template_render returns.
type templateResult struct {
	Rendered string   `json:"rendered"`
	Used     []string `json:"used"`
	Missing  []string `json:"missing"`
}

func templateRender() tool.Tool {
	type args struct {
		Template  string                     `json:"template"`
		Variables map[string]json.RawMessage `json:"variables"`
		Strict    bool                       `json:"strict"`
	}
	return tool.Tool{
		Def: tool.Def{
			Name: "template_render",
			Description: "Render a template by replacing {{name}} placeholders with values from variables. Paths may be dotted " +
				"({{user.name}}) and index arrays ({{items.0}}); whitespace inside the braces is allowed ({{ user.name }}); a " +
				"top-level key that itself contains dots is tried first. String values are inserted as they are, any other value " +
				"(number, boolean, null, object, array) as compact JSON, keeping key order and numbers as written. Substitution is a single pass: placeholders inside " +
				"inserted values are not expanded. A placeholder with no value is left as it is and listed in missing; with " +
				"strict it is an INVALID_ARGS error listing every missing name. Returns {rendered, used, missing}, where used and " +
				"missing list distinct paths in order of first appearance.",
			Phrases:  []string{"fill placeholders", "mustache", "handlebars", "string interpolation", "substitute variables", "{{var}} template", "mail merge", "fill a message template", "template string with variables"},
			Group:    Group,
			Category: tool.CategoryUtility,
			Input: schema.Object(
				schema.String("template", "Template text containing {{path}} placeholders").Required(),
				schema.Map("variables", "Values by name; nested objects and arrays are reached with dotted paths").Required(),
				schema.Boolean("strict", "Fail with INVALID_ARGS when any placeholder has no value, instead of leaving it in place").Default(false),
			),
			RequiresWorker: true,
		},
		Run: tool.Typed(func(_ context.Context, in args, _ *tool.Call) (any, error) {
			if in.Variables == nil {
				return nil, tool.Errorf(tool.CodeInvalidArgs, "argument \"variables\": is required (an object of values by name)")
			}
			res := renderTemplate(in.Template, in.Variables)
			if in.Strict && len(res.Missing) > 0 {
				return nil, tool.Errorf(tool.CodeInvalidArgs,
					"argument \"variables\": no value for %s (strict mode); add them to variables or set strict to false",
					quoteList(res.Missing))
			}
			return res, nil
		}),
	}
}

// Render fills a template the way template_render does: each {{path}} with
// a value is replaced (strings raw, other values as compact JSON), the
// others are left in place. It returns the text and the distinct paths used
// and missing, in order of first appearance.
func Render(tmpl string, vars map[string]json.RawMessage) (rendered string, used, missing []string) {
	r := renderTemplate(tmpl, vars)
	return r.Rendered, r.Used, r.Missing
}

// renderTemplate substitutes every placeholder that has a value.
func renderTemplate(tmpl string, vars map[string]json.RawMessage) *templateResult {
	type resolved struct {
		text string
		ok   bool
	}
	cache := map[string]resolved{}
	res := &templateResult{Used: []string{}, Missing: []string{}}
	res.Rendered = placeholder.ReplaceAllStringFunc(tmpl, func(m string) string {
		path := placeholder.FindStringSubmatch(m)[1]
		r, seen := cache[path]
		if !seen {
			raw, ok := lookupPath(vars, path)
			if ok {
				r = resolved{text: valueText(raw), ok: true}
				res.Used = append(res.Used, path)
			} else {
				res.Missing = append(res.Missing, path)
			}
			cache[path] = r
		}
		if !r.ok {
			return m
		}
		return r.text
	})
	return res
}

// lookupPath finds the value at a dotted path: a top-level key equal to the
// whole path, or else object keys and array indexes segment by segment.
func lookupPath(vars map[string]json.RawMessage, path string) (json.RawMessage, bool) {
	if v, ok := vars[path]; ok {
		return v, true
	}
	segs := strings.Split(path, ".")
	cur, ok := vars[segs[0]]
	if !ok {
		return nil, false
	}
	for _, seg := range segs[1:] {
		cur = bytes.TrimSpace(cur)
		if len(cur) == 0 {
			return nil, false
		}
		switch cur[0] {
		case '{':
			var obj map[string]json.RawMessage
			if json.Unmarshal(cur, &obj) != nil {
				return nil, false
			}
			if cur, ok = obj[seg]; !ok {
				return nil, false
			}
		case '[':
			var arr []json.RawMessage
			if json.Unmarshal(cur, &arr) != nil {
				return nil, false
			}
			i, err := strconv.Atoi(seg)
			if err != nil || i < 0 || i >= len(arr) || seg != strconv.Itoa(i) {
				return nil, false
			}
			cur = arr[i]
		default:
			return nil, false
		}
	}
	return cur, true
}

// valueText is how a value is inserted: strings raw, anything else as
// compact JSON, keeping the caller's key order and number spelling.
func valueText(raw json.RawMessage) string {
	raw = bytes.TrimSpace(raw)
	if len(raw) > 0 && raw[0] == '"' {
		var s string
		if json.Unmarshal(raw, &s) == nil {
			return s
		}
	}
	var buf bytes.Buffer
	if json.Compact(&buf, raw) != nil {
		return string(raw)
	}
	return buf.String()
}

// quoteList formats names as "a", "b", "c".
func quoteList(names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = strconv.Quote(n)
	}
	return strings.Join(q, ", ")
}
