package text

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/barrhawk/barrhawk/internal/tool"
)

// wantJSON fails the test unless got (generic JSON from tooltest) equals
// the JSON document want.
func wantJSON(t *testing.T, label string, got any, want string) {
	t.Helper()
	var w any
	if err := json.Unmarshal([]byte(want), &w); err != nil {
		t.Fatalf("%s: bad want JSON: %v", label, err)
	}
	if !reflect.DeepEqual(got, w) {
		g, _ := json.MarshalIndent(got, "", "  ")
		wi, _ := json.MarshalIndent(w, "", "  ")
		t.Errorf("%s:\n got %s\nwant %s", label, g, wi)
	}
}

// field returns key of a JSON object result.
func field(t *testing.T, v any, key string) any {
	t.Helper()
	m, ok := v.(map[string]any)
	if !ok {
		t.Fatalf("result is %T, not an object", v)
	}
	return m[key]
}

func TestDefinitions(t *testing.T) {
	t.Parallel()
	want := []string{"string_diff", "regex_test", "template_render", "hash_text"}
	tools := Tools()
	if len(tools) != len(want) {
		t.Fatalf("%d tools, want %d", len(tools), len(want))
	}
	for i, tl := range tools {
		if tl.Name != want[i] {
			t.Errorf("tool %d is %s, want %s", i, tl.Name, want[i])
		}
		if err := tl.Validate(); err != nil {
			t.Error(err)
		}
		if tl.Group != Group || tl.Category != tool.CategoryUtility || !tl.RequiresWorker {
			t.Errorf("%s: group %q, category %q, requiresWorker %v", tl.Name, tl.Group, tl.Category, tl.RequiresWorker)
		}
		if _, err := json.Marshal(tl.Input); err != nil {
			t.Errorf("%s: input schema does not marshal: %v", tl.Name, err)
		}
	}
}
