package mcpconfig

import (
	"encoding/json"
	"reflect"
	"testing"
)

func TestStripJSONC(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		in   string
		want any // the JSON value StripJSONC's output decodes to
	}{
		{"plain", `{"a": [1, 2], "b": "c"}`, map[string]any{"a": []any{1.0, 2.0}, "b": "c"}},
		{"line comments", "{\n  // the servers\n  \"a\": 1 // one\n}", map[string]any{"a": 1.0}},
		{"block comments", "{/* x */\"a\": /* multi\nline */ 1}", map[string]any{"a": 1.0}},
		{"trailing commas", "{\"a\": [1, 2,], \"b\": {\"c\": 3,},}", map[string]any{"a": []any{1.0, 2.0}, "b": map[string]any{"c": 3.0}}},
		{"trailing comma before a comment", "{\"a\": 1, // last\n}", map[string]any{"a": 1.0}},
		{"slashes in strings survive", `{"url": "https://example.com/mcp", "c": "/* not a comment */", "d": "a // b"}`,
			map[string]any{"url": "https://example.com/mcp", "c": "/* not a comment */", "d": "a // b"}},
		{"escaped quotes in strings", `{"a": "say \"// hi\", ok", "b": "\\"} // after`, map[string]any{"a": `say "// hi", ok`, "b": `\`}},
		{"comma in a string before a brace", `{"a": ",}"}`, map[string]any{"a": ",}"}},
		{"byte order mark", "\xEF\xBB\xBF{\"a\": 1}", map[string]any{"a": 1.0}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			in := []byte(tt.in)
			out := StripJSONC(in)
			if len(out) != len(in) {
				t.Errorf("length %d, want %d (positions must not move)", len(out), len(in))
			}
			if string(in) != tt.in {
				t.Errorf("the input was modified: %q", in)
			}
			var got any
			if err := json.Unmarshal(out, &got); err != nil {
				t.Fatalf("output %q is not JSON: %v", out, err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("decoded %#v, want %#v", got, tt.want)
			}
		})
	}
}

func TestStripJSONCKeepsPlainJSON(t *testing.T) {
	t.Parallel()
	in := `{"mcpServers": {"a": {"command": "npx", "args": ["-y", "x,]"], "env": {"K": "//v"}}}}`
	if out := string(StripJSONC([]byte(in))); out != in {
		t.Errorf("StripJSONC changed plain JSON:\n got %s\nwant %s", out, in)
	}
}

func TestStripJSONCKeepsLines(t *testing.T) {
	t.Parallel()
	in := "{\n  /* one\n two */\n  \"a\": 1,\n  \"b\": oops\n}"
	_, err := Parse("x.json", []byte(in), FormatGeneric, "")
	if err == nil {
		t.Fatal("no error for invalid JSON")
	}
	if want := "x.json: line 5, column 8: invalid JSON"; !contains(err.Error(), want) {
		t.Errorf("error %q does not contain %q", err, want)
	}
}
