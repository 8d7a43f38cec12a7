package util

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/barrhawk/barrhawk/internal/tool"
	"github.com/barrhawk/barrhawk/internal/tool/tooltest"
)

// fixedNow is the clock of the tests: Thursday 4 July 2024, 15:30:45.123456789 UTC.
var fixedNow = time.Date(2024, 7, 4, 15, 30, 45, 123456789, time.UTC)

func fixed() []tool.Tool { return tools(func() time.Time { return fixedNow }) }

// run calls a tool of the fixed-clock family and returns its object result.
func run(t *testing.T, name, args string) map[string]any {
	t.Helper()
	got, ok := tooltest.MustRun(t, fixed(), name, args).(map[string]any)
	if !ok {
		t.Fatalf("%s(%s): result is not an object", name, args)
	}
	return got
}

// decode parses a JSON literal of the test itself.
func decode(t *testing.T, s string) any {
	t.Helper()
	var v any
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		t.Fatalf("bad test JSON %s: %v", s, err)
	}
	return v
}

func asJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// equal checks that got is exactly the JSON value want.
func equal(t *testing.T, label string, got any, want string) {
	t.Helper()
	if w := decode(t, want); !reflect.DeepEqual(got, w) {
		t.Errorf("%s\n got %s\nwant %s", label, asJSON(got), asJSON(w))
	}
}

// subset checks that every key of the JSON object want has that value in got.
func subset(t *testing.T, label string, got map[string]any, want string) {
	t.Helper()
	for k, w := range decode(t, want).(map[string]any) {
		if g, ok := got[k]; !ok || !reflect.DeepEqual(g, w) {
			t.Errorf("%s: %s = %s, want %s", label, k, asJSON(g), asJSON(w))
		}
	}
}

// badInput is a call that must fail with INVALID_ARGS mentioning each of mentions.
type badInput struct {
	name, args string
	mentions   []string
}

func checkBad(t *testing.T, cases []badInput) {
	t.Helper()
	for _, tc := range cases {
		err := tooltest.MustFail(t, fixed(), tc.name, tc.args, tool.CodeInvalidArgs)
		for _, m := range tc.mentions {
			if !strings.Contains(err.Message, m) {
				t.Errorf("%s(%s): error %q does not mention %s", tc.name, tc.args, err.Message, m)
			}
		}
	}
}

func TestDefinitions(t *testing.T) {
	t.Parallel()
	want := []string{"timestamp_now", "url_parse", "math_stats", "env_info", "http_status_info", "date_utils",
		"wait_ms", "random_choice", "hello_world", "json_validator"}
	reg := tool.NewRegistry(Tools()...) // panics on an invalid definition
	var names []string
	for _, tl := range reg.List() {
		names = append(names, tl.Name)
		if tl.Category != tool.CategoryUtility || !tl.RequiresWorker {
			t.Errorf("%s: category %q, requiresWorker %v; want utility, true", tl.Name, tl.Category, tl.RequiresWorker)
		}
		wantGroup := Group
		if tl.Name == "hello_world" || tl.Name == "json_validator" {
			wantGroup = ExamplesGroup
		}
		if tl.Group != wantGroup {
			t.Errorf("%s: group %q, want %q", tl.Name, tl.Group, wantGroup)
		}
		for _, r := range tl.Input.Required {
			if tl.Input.Properties[r] == nil {
				t.Errorf("%s: required %q is not a property", tl.Name, r)
			}
		}
	}
	if !reflect.DeepEqual(names, want) {
		t.Errorf("tools = %v, want %v", names, want)
	}
	if w, _ := reg.Get("wait_ms"); w.Timeout != 35*time.Second {
		t.Errorf("wait_ms timeout = %v, want 35s", w.Timeout)
	}
}
