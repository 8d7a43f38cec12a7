package front

import (
	"encoding/json"
	"testing"

	"github.com/barrhawk/barrhawk/internal/doctor"
	"github.com/barrhawk/barrhawk/internal/tool"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func TestStructuredFollowsTheProtocolVersion(t *testing.T) {
	for v, want := range map[string]bool{
		"": false, "2024-11-05": false, "2025-03-26": false,
		"2025-06-18": true, "2025-11-25": true, "2026-07-28": true,
	} {
		if got := Structured(v); got != want {
			t.Errorf("Structured(%q) = %v, want %v", v, got, want)
		}
	}
}

func TestToResult(t *testing.T) {
	textOf := func(res *mcp.CallToolResult) string {
		t.Helper()
		if len(res.Content) != 1 {
			t.Fatalf("want one content part, got %+v", res.Content)
		}
		return res.Content[0].(*mcp.TextContent).Text
	}
	for _, c := range []struct {
		name       string
		value      string
		structured bool
		wantText   string
		wantSC     bool
	}{
		{"object, new protocol", `{"hash":"abc","n":1}`, true, `{"hash":"abc","n":1}`, true},
		{"object, old protocol", `{"hash":"abc"}`, false, `{"hash":"abc"}`, false},
		{"string is itself", `"hello \"you\""`, true, `hello "you"`, false},
		{"array is text only", `[1,2]`, true, `[1,2]`, false},
		{"number is text only", `42`, true, `42`, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			res := ToResult(doctor.Result{Value: json.RawMessage(c.value)}, c.structured)
			if res.IsError {
				t.Fatalf("a value is not an error: %+v", res)
			}
			if got := textOf(res); got != c.wantText {
				t.Errorf("text: got %q, want %q", got, c.wantText)
			}
			if has := res.StructuredContent != nil; has != c.wantSC {
				t.Fatalf("structuredContent present = %v, want %v", has, c.wantSC)
			}
			if c.wantSC {
				b, err := json.Marshal(res)
				if err != nil {
					t.Fatal(err)
				}
				var back struct {
					StructuredContent map[string]any `json:"structuredContent"`
				}
				if err := json.Unmarshal(b, &back); err != nil || back.StructuredContent["hash"] != "abc" {
					t.Errorf("structuredContent does not encode as the object: %s (%v)", b, err)
				}
			}
		})
	}
	res := ToResult(doctor.Result{Err: tool.Errorf(tool.CodeInvalidArgs, "text: want a string, got a number")}, true)
	if !res.IsError || res.StructuredContent != nil || textOf(res) != "INVALID_ARGS: text: want a string, got a number" {
		t.Errorf("an error: want isError with \"CODE: message\" and no structuredContent, got %+v", res)
	}
}

// TestHotPathEncodesStructuredContent: the stdio hot path writes the same
// JSON as the SDK would for a result with structuredContent.
func TestHotPathEncodesStructuredContent(t *testing.T) {
	res := ToResult(doctor.Result{Value: json.RawMessage(`{"a":[1,"x"]}`)}, true)
	got, ok := appendResult(nil, res)
	if !ok {
		t.Fatal("appendResult left a structured result to json.Marshal")
	}
	want, err := json.Marshal(res)
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != string(want) {
		t.Errorf("hot path:\n got %s\nwant %s", got, want)
	}
}
