package util

import (
	"reflect"
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
	return tooltest.MustRunObject(t, fixed(), name, args)
}

// subset checks that every key of the JSON object want has that value in got.
func subset(t *testing.T, label string, got map[string]any, want string) {
	t.Helper()
	for k, w := range tooltest.JSON(t, want).(map[string]any) {
		if g, ok := got[k]; !ok || !reflect.DeepEqual(g, w) {
			t.Errorf("%s: %s = %s, want %s", label, k, tooltest.Marshal(g), tooltest.Marshal(w))
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
		tooltest.MustFailWith(t, fixed(), tc.name, tc.args, tool.CodeInvalidArgs, tc.mentions...)
	}
}

func TestDefinitions(t *testing.T) {
	t.Parallel()
	group := func(name string) string {
		if name == "hello_world" || name == "json_validator" {
			return ExamplesGroup
		}
		return Group
	}
	tooltest.CheckFamily(t, Tools(), group, "timestamp_now", "url_parse", "math_stats", "env_info", "http_status_info",
		"date_utils", "wait_ms", "random_choice", "hello_world", "json_validator")
	reg := tool.NewRegistry(Tools()...) // panics on an invalid definition
	for _, tl := range reg.List() {
		for _, r := range tl.Input.Required {
			if tl.Input.Properties[r] == nil {
				t.Errorf("%s: required %q is not a property", tl.Name, r)
			}
		}
	}
	if w, _ := reg.Get("wait_ms"); w.Timeout != 35*time.Second {
		t.Errorf("wait_ms timeout = %v, want 35s", w.Timeout)
	}
}
