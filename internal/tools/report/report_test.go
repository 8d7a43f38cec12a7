package report

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/barrhawk/barrhawk/internal/tool"
	"github.com/barrhawk/barrhawk/internal/tool/tooltest"
)

// sample is a small run: 3 passed (one after retries), 2 failed with
// errors differing only in a number, 1 skipped, 1 pending, one result
// without a suite.
const sample = `[
	{"name":"login ok","status":"passed","duration":120,"suite":"auth"},
	{"name":"login bad password","status":"failed","duration":340,"suite":"auth","error":"Expected status 401, got 500","stack":"at login.spec.ts:42","screenshot":"shots/login.png","file":"login.spec.ts"},
	{"name":"logout","status":"passed","duration":80,"suite":"auth","retries":2},
	{"name":"cart add","status":"failed","duration":560,"suite":"cart","error":"Expected status 401, got 503"},
	{"name":"cart remove","status":"skipped","suite":"cart"},
	{"name":"checkout","status":"pending","suite":"cart"},
	{"name":"search","status":"passed","duration":300}
]`

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

// obj returns a JSON object result as a map.
func obj(t *testing.T, v any) map[string]any {
	t.Helper()
	m, ok := v.(map[string]any)
	if !ok {
		t.Fatalf("result is %T, not an object", v)
	}
	return m
}

// badInput runs each case and checks for INVALID_ARGS mentioning every
// string given.
func badInput(t *testing.T, name string, cases []struct {
	args     string
	mentions []string
}) {
	t.Helper()
	for _, tc := range cases {
		err := tooltest.MustFail(t, Tools(), name, tc.args, tool.CodeInvalidArgs)
		for _, m := range tc.mentions {
			if !strings.Contains(err.Message, m) {
				t.Errorf("%s(%s) error %q does not mention %s", name, tc.args, err.Message, m)
			}
		}
	}
}

// resultsBadInput are wrong `results` arguments every report_* tool rejects.
var resultsBadInput = []struct {
	args     string
	mentions []string
}{
	{`{}`, []string{`"results"`, "required"}},
	{`{"results":{}}`, []string{`"results": expected array, got object`}},
	{`{"results":[{"status":"passed"}]}`, []string{`"results[0].name"`}},
	{`{"results":[{"name":"a"}]}`, []string{`"results[0].status"`}},
	{`{"results":[{"name":"a","status":"passed"},{"name":"b","status":"broken"}]}`, []string{`"results[1].status"`, `"passed", "failed", "skipped", "pending"`}},
	{`{"results":[{"name":"a","status":"passed","duration":-5}]}`, []string{`"results[0].duration"`, ">= 0"}},
	{`{"results":[{"name":"a","status":"passed","duration":"5ms"}]}`, []string{`"results[0].duration": expected number`}},
	{`{"results":[{"name":"a","status":"passed","retries":1.5}]}`, []string{`"results[0].retries": expected integer`}},
	{`{"results":["a"]}`, []string{`"results[0]": expected object`}},
}

func TestDefinitions(t *testing.T) {
	t.Parallel()
	groups := map[string]string{
		"report_summary": Group, "report_failures": Group, "report_timing": Group, "performance_regression": PerformanceGroup,
	}
	tools := Tools()
	if len(tools) != len(groups) {
		t.Fatalf("%d tools, want %d", len(tools), len(groups))
	}
	for _, tl := range tools {
		if err := tl.Validate(); err != nil {
			t.Error(err)
		}
		if groups[tl.Name] != tl.Group || tl.Category != tool.CategoryUtility || !tl.RequiresWorker {
			t.Errorf("%s: group %q, category %q, requiresWorker %v", tl.Name, tl.Group, tl.Category, tl.RequiresWorker)
		}
		checkDescribed(t, tl.Name, tl.Input)
		if _, err := json.Marshal(tl.Input); err != nil {
			t.Errorf("%s: input schema does not marshal: %v", tl.Name, err)
		}
	}
}

// checkDescribed fails for any nested property without a description.
func checkDescribed(t *testing.T, path string, s *jsonschema.Schema) {
	t.Helper()
	if s == nil {
		return
	}
	for name, p := range s.Properties {
		if p.Description == "" {
			t.Errorf("%s.%s has no description", path, name)
		}
		checkDescribed(t, path+"."+name, p)
	}
	checkDescribed(t, path+"[]", s.Items)
}

func TestPercentile(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		values []float64
		p      float64
		want   float64
	}{
		{nil, 50, 0},
		{[]float64{7}, 99, 7},
		{[]float64{1, 2, 3, 4}, 50, 2.5},
		{[]float64{1, 2, 3, 4}, 0, 1},
		{[]float64{1, 2, 3, 4}, 100, 4},
		{[]float64{15, 20, 35, 40, 50}, 40, 29},
		{[]float64{80, 120, 300, 340, 560}, 90, 472},
		{[]float64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}, 95, 9.55},
	} {
		if got := round(percentile(tc.values, tc.p), 9); got != tc.want {
			t.Errorf("percentile(%v, %v) = %v, want %v", tc.values, tc.p, got, tc.want)
		}
	}
}

func TestFormatMs(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		ms   float64
		want string
	}{
		{0, "0ms"}, {12.345, "12.35ms"}, {999, "999ms"}, {1000, "1s"}, {1250, "1.25s"}, {60000, "1m 0s"}, {123400, "2m 3.4s"},
	} {
		if got := formatMs(tc.ms); got != tc.want {
			t.Errorf("formatMs(%v) = %q, want %q", tc.ms, got, tc.want)
		}
	}
}
