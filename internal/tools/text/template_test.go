package text

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/barrhawk/barrhawk/internal/tool"
	"github.com/barrhawk/barrhawk/internal/tool/tooltest"
)

func TestTemplateRenderWorkedExample(t *testing.T) {
	t.Parallel()
	got := tooltest.MustRun(t, Tools(), "template_render", `{
		"template": "Hi {{ user.name }}, item {{items.1}}, n={{n}}, obj={{obj}}, {{missing.x}}, again {{user.name}}",
		"variables": {"user": {"name": "Ann"}, "items": ["a", {"b": 1}], "n": 1.50, "obj": {"z": 1, "a": [true, null]}}
	}`)
	tooltest.WantJSON(t, "template_render", got, `{
		"rendered": "Hi Ann, item {\"b\":1}, n=1.50, obj={\"z\":1,\"a\":[true,null]}, {{missing.x}}, again Ann",
		"used": ["user.name", "items.1", "n", "obj"],
		"missing": ["missing.x"]
	}`)
}

func TestTemplateRender(t *testing.T) {
	t.Parallel()
	vars := `{
		"name": "José", "count": 3, "ok": true, "nothing": null, "quote": "say \"hi\"",
		"list": ["zero", "one"], "deep": {"a": {"b": [10, {"c": "found"}]}},
		"a.b": "flat key", "a": {"b": "nested"}, "brace": "{{name}}", "empty": ""
	}`
	for _, tc := range []struct{ template, rendered, used, missing string }{
		{"", "", "", ""},
		{"no placeholders", "no placeholders", "", ""},
		{"¡Hola {{nombre}}!", "¡Hola {{nombre}}!", "", "nombre"},
		{"¡Hola {{name}}! 👋", "¡Hola José! 👋", "name", ""},
		{"{{name}}|{{ name }}|{{\tname\n}}", "José|José|José", "name", ""},
		{"{{count}} {{ok}} {{nothing}} {{quote}}", `3 true null say "hi"`, "count,ok,nothing,quote", ""},
		{"{{list.0}} {{list.1}} {{list.2}} {{list.-1}} {{list.01}}", "zero one {{list.2}} {{list.-1}} {{list.01}}", "list.0,list.1", "list.2,list.-1,list.01"},
		{"{{deep.a.b.1.c}} {{deep.a.b.0}} {{deep.a.b.0.x}}", "found 10 {{deep.a.b.0.x}}", "deep.a.b.1.c,deep.a.b.0", "deep.a.b.0.x"},
		{"{{a.b}}", "flat key", "a.b", ""},
		{"{{brace}}", "{{name}}", "brace", ""},
		{"[{{empty}}]", "[]", "empty", ""},
		{"{{ }} {{a b}} {{.x}} {{x.}} {name}", "{{ }} {{a b}} {{.x}} {{x.}} {name}", "", ""},
		{"{{{name}}}", "{José}", "name", ""},
		{"{{name.first}}", "{{name.first}}", "", "name.first"},
	} {
		got := tooltest.MustRun(t, Tools(), "template_render", `{"template":`+jsonString(tc.template)+`,"variables":`+vars+`}`)
		if r := tooltest.Object(t, got)["rendered"]; r != tc.rendered {
			t.Errorf("render %q = %q, want %q", tc.template, r, tc.rendered)
		}
		if u := joinAny(tooltest.Object(t, got)["used"]); u != tc.used {
			t.Errorf("render %q: used %q, want %q", tc.template, u, tc.used)
		}
		if m := joinAny(tooltest.Object(t, got)["missing"]); m != tc.missing {
			t.Errorf("render %q: missing %q, want %q", tc.template, m, tc.missing)
		}
	}
}

func TestTemplateRenderStrict(t *testing.T) {
	t.Parallel()
	got := tooltest.MustRun(t, Tools(), "template_render", `{"template":"{{a}}-{{b.c}}","variables":{"a":1,"b":{"c":"x"}},"strict":true}`)
	if r := tooltest.Object(t, got)["rendered"]; r != "1-x" {
		t.Errorf("strict with every value: rendered %q, want 1-x", r)
	}
	tooltest.MustFailWith(t, Tools(), "template_render",
		`{"template":"{{a}} {{one}} {{b.c}} {{one}} {{two.0}}","variables":{"a":1,"b":{}},"strict":true}`, tool.CodeInvalidArgs, `"variables"`, `"one", "b.c", "two.0"`, "strict")
}

func TestTemplateRenderBadInput(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ args, mention string }{
		{`{"variables":{}}`, `"template"`},
		{`{"template":"x"}`, `"variables"`},
		{`{"template":"x","variables":[]}`, `"variables": expected object, got array`},
		{`{"template":"x","variables":null}`, `"variables": expected object, got null`},
		{`{"template":7,"variables":{}}`, `"template": expected string`},
		{`{"template":"x","variables":{},"strict":"yes"}`, `"strict": expected boolean`},
	} {
		tooltest.MustFailWith(t, Tools(), "template_render", tc.args, tool.CodeInvalidArgs, tc.mention)
	}
}

// jsonString is s as a JSON string literal.
func jsonString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// joinAny joins a JSON array of strings with commas.
func joinAny(v any) string {
	arr, _ := v.([]any)
	parts := make([]string, len(arr))
	for i, x := range arr {
		parts[i], _ = x.(string)
	}
	return strings.Join(parts, ",")
}
