package report

import (
	"strings"
	"testing"

	"github.com/barrhawk/barrhawk/internal/tool/tooltest"
)

func TestReportFailuresByError(t *testing.T) {
	t.Parallel()
	got := tooltest.MustRun(t, Tools(), "report_failures", `{"results":`+sample+`}`)
	tooltest.WantJSON(t, "report_failures", got, `{
		"total": 7, "failed": 2, "groupBy": "error",
		"groups": [{
			"key": "Expected status <n>, got <n>", "count": 2,
			"firstError": "Expected status 401, got 500", "stack": "at login.spec.ts:42",
			"tests": [
				{"name": "login bad password", "suite": "auth", "file": "login.spec.ts", "durationMs": 340, "screenshot": "shots/login.png"},
				{"name": "cart add", "suite": "cart", "durationMs": 560}
			]
		}],
		"report": "# Failure report\n\n2 of 7 tests failed, in 1 group (grouped by error).\n\n## 1. `+"`Expected status <n>, got <n>`"+` (2 tests)\n\n`+
		"```\\nExpected status 401, got 500\\n```\\n\\n"+
		"- `login bad password` (auth) in `login.spec.ts` [screenshot](<shots/login.png>)\\n- `cart add` (cart)\\n\\n"+
		"<details><summary>Stack trace</summary>\\n\\n```\\nat login.spec.ts:42\\n```\\n\\n</details>\\n"+`"
	}`)
}

func TestReportFailuresNone(t *testing.T) {
	t.Parallel()
	got := tooltest.MustRun(t, Tools(), "report_failures", `{"results":`+sample+`,"groupBy":"none"}`)
	tooltest.WantJSON(t, "report_failures", got, `{
		"total": 7, "failed": 2, "groupBy": "none",
		"failures": [
			{"name": "login bad password", "suite": "auth", "file": "login.spec.ts", "durationMs": 340,
			 "error": "Expected status 401, got 500", "stack": "at login.spec.ts:42", "screenshot": "shots/login.png"},
			{"name": "cart add", "suite": "cart", "durationMs": 560, "error": "Expected status 401, got 503"}
		],
		"report": "# Failure report\n\n2 of 7 tests failed.\n\n## 1. `+"`login bad password`"+` (auth)\n\n`+
		"- File: `login.spec.ts`\\n- Screenshot: [screenshot](<shots/login.png>)\\n\\n"+
		"```\\nExpected status 401, got 500\\n```\\n\\n"+
		"<details><summary>Stack trace</summary>\\n\\n```\\nat login.spec.ts:42\\n```\\n\\n</details>\\n\\n"+
		"## 2. `cart add` (cart)\\n\\n```\\nExpected status 401, got 503\\n```\\n"+`"
	}`)
}

func TestReportFailuresBySuite(t *testing.T) {
	t.Parallel()
	got := tooltest.Object(t, tooltest.MustRun(t, Tools(), "report_failures", `{"results":`+sample+`,"groupBy":"suite","includeScreenshots":false,"includeStack":false}`))
	delete(got, "report")
	tooltest.WantJSON(t, "report_failures by suite", got, `{
		"total": 7, "failed": 2, "groupBy": "suite",
		"groups": [
			{"key": "auth", "count": 1, "firstError": "Expected status 401, got 500",
			 "tests": [{"name": "login bad password", "suite": "auth", "file": "login.spec.ts", "durationMs": 340, "error": "Expected status 401, got 500"}]},
			{"key": "cart", "count": 1, "firstError": "Expected status 401, got 503",
			 "tests": [{"name": "cart add", "suite": "cart", "durationMs": 560, "error": "Expected status 401, got 503"}]}
		]
	}`)
}

func TestReportFailuresGrouping(t *testing.T) {
	t.Parallel()
	results := `[
		{"name":"t1","status":"failed","error":"Timeout 5000ms waiting for #btn-1"},
		{"name":"t2","status":"failed","error":"\u001b[31mElement 550e8400-e29b-41d4-a716-446655440000 detached\u001b[0m","retries":1},
		{"name":"t3","status":"passed","error":"ignored"},
		{"name":"t4","status":"failed","error":"Element 123e4567-e89b-12d3-a456-426614174000   detached"},
		{"name":"t5","status":"failed"},
		{"name":"t6","status":"failed","error":"Timeout 3000ms waiting for #btn-22\nat page.click","stack":"s6"},
		{"name":"t7","status":"failed","error":"   "},
		{"name":"t8","status":"failed","error":"Element 123e4567-e89b-12d3-a456-426614174000 detached"}
	]`
	got := tooltest.Object(t, tooltest.MustRun(t, Tools(), "report_failures", `{"results":`+results+`}`))
	type g struct {
		key   string
		tests string
	}
	want := []g{
		{"Element <id> detached", "t2,t4,t8"},
		{"(no error message)", "t5,t7"},
		{"Timeout <n>ms waiting for #btn-<n>", "t1"},
		{"Timeout <n>ms waiting for #btn-<n> at page.click", "t6"},
	}
	groups := got["groups"].([]any)
	if len(groups) != len(want) {
		t.Fatalf("%d groups, want %d: %v", len(groups), len(want), groups)
	}
	for i, w := range want {
		gr := groups[i].(map[string]any)
		var names []string
		for _, tt := range gr["tests"].([]any) {
			names = append(names, tt.(map[string]any)["name"].(string))
		}
		if gr["key"] != w.key || strings.Join(names, ",") != w.tests || gr["count"] != float64(len(names)) {
			t.Errorf("group %d = %q %v (count %v), want %q %s", i, gr["key"], names, gr["count"], w.key, w.tests)
		}
	}
	report := got["report"].(string)
	for _, m := range []string{
		"7 of 8 tests failed, in 4 groups (grouped by error)",
		"## 1. `Element <id> detached` (3 tests)",
		"```\nElement 550e8400-e29b-41d4-a716-446655440000 detached\n```", // colours stripped
		"- `t2`, after 1 retry\n",
		"## 2. `(no error message)` (2 tests)\n\n_No error message._",
	} {
		if !strings.Contains(report, m) {
			t.Errorf("report does not contain %q:\n%s", m, report)
		}
	}
}

func TestReportFailuresEdgeCases(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ name, args, want string }{
		{"empty results", `{"results":[]}`, `{"total":0,"failed":0,"groupBy":"error","groups":[],"report":"# Failure report\n\nNo failed tests (0 results).\n"}`},
		{"all skipped", `{"results":[{"name":"a","status":"skipped"}],"groupBy":"none"}`, `{"total":1,"failed":0,"groupBy":"none","failures":[],"report":"# Failure report\n\nNo failed tests (1 result).\n"}`},
	} {
		tooltest.WantJSON(t, tc.name, tooltest.MustRun(t, Tools(), "report_failures", tc.args), tc.want)
	}
	// An error containing a code fence gets a longer fence.
	got := tooltest.Object(t, tooltest.MustRun(t, Tools(), "report_failures", "{\"results\":[{\"name\":\"md\",\"status\":\"failed\",\"error\":\"bad:\\n```\\ncode\\n```\"}]}"))
	if r := got["report"].(string); !strings.Contains(r, "````\nbad:\n```\ncode\n```\n````") {
		t.Errorf("fence not lengthened:\n%s", r)
	}
}

func TestNormalizeError(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ in, want string }{
		{"Timeout 5000ms exceeded", "Timeout <n>ms exceeded"},
		{"\x1b[31mExpected\x1b[0m 3.5 to be 4", "Expected <n> to be <n>"},
		{"User 550E8400-E29B-41D4-A716-446655440000 not found", "User <id> not found"},
		{"segfault at 0xDEADBEEF", "segfault at <id>"},
		{"request req9f8e7d6c5b failed", "request <id> failed"},
		{"commit 3f2a9c1 and sha256 stay", "commit <n>f<n>a<n>c<n> and sha<n> stay"},
		{"  multi\n  line\t message ", "multi line message"},
		{"", "(no error message)"},
		{"Element #btn-42 not visible", "Element #btn-<n> not visible"},
		{"données 12 manquantes", "données <n> manquantes"},
	} {
		if got := normalizeError(tc.in); got != tc.want {
			t.Errorf("normalizeError(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestReportFailuresBadInput(t *testing.T) {
	t.Parallel()
	badInput(t, "report_failures", resultsBadInput)
	badInput(t, "report_failures", []struct {
		args     string
		mentions []string
	}{
		{`{"results":[],"groupBy":"file"}`, []string{`"groupBy"`, `"none", "error", "suite"`}},
		{`{"results":[],"includeStack":"no"}`, []string{`"includeStack": expected boolean`}},
		{`{"results":[],"includeScreenshots":1}`, []string{`"includeScreenshots": expected boolean`}},
	})
}
