package docs

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/barrhawk/barrhawk/internal/tool"
	"github.com/google/jsonschema-go/jsonschema"
)

func TestReference(t *testing.T) {
	one := 1.0
	tools := []*tool.Tool{
		{Def: tool.Def{Name: "a_get", Group: "A things", Description: "Get an a.\nScores 0.6*x + 0.4*y.", Input: &jsonschema.Schema{
			Type: "object",
			Properties: map[string]*jsonschema.Schema{
				"id":   {Type: "string", Description: "Which a | which b"},
				"mode": {Type: "string", Enum: []any{"fast", "slow"}, Default: json.RawMessage(`"fast"`)},
				"n":    {Type: "integer", Minimum: &one},
				"tags": {Type: "array", Items: &jsonschema.Schema{Type: "string"}},
			},
			PropertyOrder: []string{"id", "mode", "n", "tags"},
			Required:      []string{"id"},
		}}},
		{Def: tool.Def{Name: "fault", Group: "Test", Category: tool.CategoryTest, Input: &jsonschema.Schema{Type: "object"}}},
		{Def: tool.Def{Name: "b_list", Group: "B", Description: "List b.", Input: &jsonschema.Schema{Type: "object"}}},
	}
	got := Reference(tools)
	for _, want := range []string{
		"2 tools in 2 families.",
		"## A things\n\n1 tools.",
		"| [`a_get`](#a_get) | id*, mode, n, tags | Get an a. |",
		"### a_get\n\nGet an a. Scores 0.6\\*x + 0.4\\*y.\n",
		"| `id`* | string | Which a \\| which b |",
		"| `mode` | string | One of `\"fast\"`, `\"slow\"`. Default `\"fast\"`. |",
		"| `n` | integer | At least 1. |",
		"| `tags` | string[] |  |",
		"### b_list\n\nList b.\n\nNo arguments.\n",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("Reference lacks %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "### fault") || strings.Contains(got, "## Test") {
		t.Error("Reference documents a test tool")
	}
	// Every link of the page leads to one of its headings.
	anchors := Anchors(got)
	for _, l := range Links(got) {
		if !anchors[strings.TrimPrefix(l, "#")] {
			t.Errorf("link %s has no heading", l)
		}
	}
	sum := Summary(tools, "docs/tools.md")
	if want := "2 tools in 2 families: [A things](docs/tools.md#a-things) (1), [B](docs/tools.md#b) (1).\n"; sum != want {
		t.Errorf("Summary = %q, want %q", sum, want)
	}
}

func TestSplice(t *testing.T) {
	got, err := Splice("x\n<!-- b -->\nold\n<!-- e -->\ny", "<!-- b -->", "<!-- e -->", "new\n")
	if err != nil || got != "x\n<!-- b -->\nnew\n<!-- e -->\ny" {
		t.Errorf("Splice = %q, %v", got, err)
	}
	if _, err := Splice("no markers", "<!-- b -->", "<!-- e -->", ""); err == nil {
		t.Error("Splice without markers succeeded")
	}
}

func TestLinks(t *testing.T) {
	md := "See [a](docs/a.md) and ![img](i.png \"title\"), [web](https://x.y/z).\n" +
		"`[not](code.md)` [b](b.md#part)\n" +
		"```sh\n[fenced](f.md)\n```\n" +
		"[ref]: docs/ref.md\n" +
		"[self](#tools)\n"
	want := []string{"docs/a.md", "i.png", "https://x.y/z", "b.md#part", "docs/ref.md", "#tools"}
	if got := Links(md); !slices.Equal(got, want) {
		t.Errorf("Links = %q, want %q", got, want)
	}
}

func TestAnchors(t *testing.T) {
	md := "# Tools\n## MCP gateway\n### `browser_click`\n## String/Text\n## Tools\n" +
		"```\n# not a heading\n```\n## [Linked](x.md) heading ##\n"
	got := Anchors(md)
	for _, a := range []string{"tools", "mcp-gateway", "browser_click", "stringtext", "tools-1", "linked-heading"} {
		if !got[a] {
			t.Errorf("no anchor %q in %v", a, got)
		}
	}
	if got["not-a-heading"] {
		t.Error("a line in a code block was read as a heading")
	}
}
