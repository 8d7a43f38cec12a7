package testanalysis

import (
	"reflect"
	"strings"
	"testing"

	"github.com/barrhawk/barrhawk/internal/tool"
	"github.com/barrhawk/barrhawk/internal/tool/tooltest"
)

type example struct{ name, args, want string }

func runExamples(t *testing.T, name string, examples []example) {
	t.Helper()
	for _, ex := range examples {
		tooltest.WantJSON(t, name+" "+ex.name, tooltest.MustRun(t, Tools(), name, ex.args), ex.want)
	}
}

type badInput struct{ args, mention string }

func runBad(t *testing.T, name string, cases []badInput) {
	t.Helper()
	for _, tc := range cases {
		tooltest.MustFailWith(t, Tools(), name, tc.args, tool.CodeInvalidArgs, tc.mention)
	}
}

func TestDefinitions(t *testing.T) {
	t.Parallel()
	tooltest.CheckFamily(t, Tools(), tooltest.Group(Group), "test_flaky_detect", "test_prioritize", "test_deduplicate", "test_coverage_gaps")
}

// ciHistory is a CI history used by several tests: login alternates, cart
// passed once only after a retry, search always fails, profile has too few
// runs.
const ciHistory = `[
	{"name":"login","status":"passed","duration":100,"timestamp":"2024-05-01T10:00:00Z","runId":"r1"},
	{"name":"login","status":"failed","duration":120,"timestamp":"2024-05-02T10:00:00Z","runId":"r2"},
	{"name":"login","status":"passed","duration":110,"timestamp":"2024-05-03T10:00:00Z","runId":"r3"},
	{"name":"login","status":"failed","duration":130,"timestamp":"2024-05-04T10:00:00Z","runId":"r4"},
	{"name":"cart","status":"passed","duration":1000,"timestamp":"2024-05-01T10:00:00Z"},
	{"name":"cart","status":"passed","duration":1000,"timestamp":"2024-05-02T10:00:00Z","retries":1},
	{"name":"cart","status":"passed","duration":1000,"timestamp":"2024-05-03T10:00:00Z"},
	{"name":"cart","status":"passed","duration":1000,"timestamp":"2024-05-04T10:00:00Z"},
	{"name":"search","status":"failed","duration":50},
	{"name":"search","status":"failed","duration":50},
	{"name":"search","status":"failed","duration":50},
	{"name":"profile","status":"passed"},
	{"name":"profile","status":"skipped"}]`

func TestFlakyDetect(t *testing.T) {
	t.Parallel()
	runExamples(t, "test_flaky_detect", []example{
		{"worked example", `{"testHistory":` + ciHistory + `}`, `{
			"flakyTests":[
				{"name":"login","runs":4,"passes":2,"failures":2,"skipped":0,"retriedPasses":0,"failureRate":0.5,"flips":3,"score":1,"avgDuration":115},
				{"name":"cart","runs":4,"passes":4,"failures":0,"skipped":0,"retriedPasses":1,"failureRate":0,"flips":0,"score":0.2,"avgDuration":1000}],
			"stableTests":1,
			"consistentlyFailing":["search"],
			"insufficientData":["profile"],
			"summary":"4 tests in 13 results: 2 flaky (most flaky: login, score 1), 1 stable (1 of them failing every run), 1 with fewer than 3 runs."}`},
		{"empty history", `{"testHistory":[]}`,
			`{"flakyTests":[],"stableTests":0,"consistentlyFailing":[],"insufficientData":[],"summary":"No test runs given."}`},
		{"single run", `{"testHistory":[{"name":"ログイン","status":"failed"}]}`,
			`{"flakyTests":[],"stableTests":0,"consistentlyFailing":[],"insufficientData":["ログイン"],"summary":"1 test in 1 result: 0 flaky, 0 stable, 1 with fewer than 3 runs."}`},
		// A retried pass is flakiness seen within one run: no more runs
		// are needed.
		{"retried pass in a single run", `{"testHistory":[{"name":"r","status":"passed","retries":1}]}`,
			`{"flakyTests":[{"name":"r","runs":1,"passes":1,"failures":0,"skipped":0,"retriedPasses":1,"failureRate":0,"flips":0,"score":0.6}],
			"stableTests":0,"consistentlyFailing":[],"insufficientData":[],"summary":"1 test in 1 result: 1 flaky (most flaky: r, score 0.6), 0 stable."}`},
		{"single run, minRuns 1", `{"testHistory":[{"name":"ログイン","status":"failed"}],"minRuns":1}`,
			`{"flakyTests":[],"stableTests":1,"consistentlyFailing":["ログイン"],"insufficientData":[],"summary":"1 test in 1 result: 0 flaky, 1 stable (1 of them failing every run)."}`},
		// Given out of order; in time order (mixed timestamp forms) it is
		// P P F F: one flip, not the two of the input order F P P F.
		{"time order", `{"testHistory":[
			{"name":"t","status":"failed","timestamp":"2024-01-03"},
			{"name":"t","status":"passed","timestamp":1704067200},
			{"name":"t","status":"passed","timestamp":1704153600000},
			{"name":"t","status":"failed","timestamp":"2024-01-04T00:00:00+00:00"}]}`,
			`{"flakyTests":[{"name":"t","runs":4,"passes":2,"failures":2,"skipped":0,"retriedPasses":0,"failureRate":0.5,"flips":1,"score":0.6}],
			"stableTests":0,"consistentlyFailing":[],"insufficientData":[],"summary":"1 test in 4 results: 1 flaky (most flaky: t, score 0.6), 0 stable."}`},
		// Skipped runs are ignored: P F P gives 2 flips over 2 transitions.
		{"skipped ignored", `{"testHistory":[
			{"name":"s","status":"passed"},{"name":"s","status":"skipped"},{"name":"s","status":"failed"},
			{"name":"s","status":"skipped"},{"name":"s","status":"passed"}]}`,
			`{"flakyTests":[{"name":"s","runs":5,"passes":2,"failures":1,"skipped":2,"retriedPasses":0,"failureRate":0.333,"flips":2,"score":0.867}],
			"stableTests":0,"consistentlyFailing":[],"insufficientData":[],"summary":"1 test in 5 results: 1 flaky (most flaky: s, score 0.867), 0 stable."}`},
	})
}

func TestFlakyDetectThreshold(t *testing.T) {
	t.Parallel()
	// 19 passes then one failure: failureRate 0.05, balance 0.1, one flip
	// over 19 transitions: score 0.6*1/19 + 0.4*0.1 = 0.072.
	var runs []string
	for range 19 {
		runs = append(runs, `{"name":"rare","status":"passed"}`)
	}
	runs = append(runs, `{"name":"rare","status":"failed"}`)
	h := "[" + strings.Join(runs, ",") + "]"
	got := tooltest.MustRunObject(t, Tools(), "test_flaky_detect", `{"testHistory":`+h+`}`)
	if len(got["flakyTests"].([]any)) != 0 || got["stableTests"] != 1.0 {
		t.Errorf("score 0.072 under the default threshold 0.1: %s", tooltest.Marshal(got))
	}
	got = tooltest.MustRunObject(t, Tools(), "test_flaky_detect", `{"testHistory":`+h+`,"flakinessThreshold":0.05}`)
	flaky := got["flakyTests"].([]any)
	if len(flaky) != 1 || flaky[0].(map[string]any)["score"] != 0.072 || flaky[0].(map[string]any)["failureRate"] != 0.05 {
		t.Errorf("threshold 0.05: %s", tooltest.Marshal(got))
	}
	got = tooltest.MustRunObject(t, Tools(), "test_flaky_detect", `{"testHistory":`+h+`,"minRuns":21}`)
	if !tooltest.SameJSON(t, got["insufficientData"], `["rare"]`) {
		t.Errorf("minRuns 21: %s", tooltest.Marshal(got))
	}
}

func TestFlakyDetectSortedByScore(t *testing.T) {
	t.Parallel()
	h := `[{"name":"b","status":"passed"},{"name":"b","status":"passed"},{"name":"b","status":"failed"},
		{"name":"a","status":"passed"},{"name":"a","status":"failed"},{"name":"a","status":"passed"},
		{"name":"c","status":"failed"},{"name":"c","status":"passed"},{"name":"c","status":"failed"}]`
	got := tooltest.MustRunObject(t, Tools(), "test_flaky_detect", `{"testHistory":`+h+`}`)
	var order []string
	var scores []float64
	for _, f := range got["flakyTests"].([]any) {
		order = append(order, f.(map[string]any)["name"].(string))
		scores = append(scores, f.(map[string]any)["score"].(float64))
	}
	// c: 2 failures of 3 (ties a on score, more failures first); a: same
	// score; b: one flip.
	if !reflect.DeepEqual(order, []string{"c", "a", "b"}) || !reflect.DeepEqual(scores, []float64{0.867, 0.867, 0.567}) {
		t.Errorf("order %v scores %v", order, scores)
	}
}

func TestFlakyDetectBadInput(t *testing.T) {
	t.Parallel()
	runBad(t, "test_flaky_detect", []badInput{
		{`{}`, `"testHistory"`},
		{`{"testHistory":{}}`, `"testHistory"`},
		{`{"testHistory":[{"status":"passed"}]}`, `"testHistory[0].name"`},
		{`{"testHistory":[{"name":"","status":"passed"}]}`, `"testHistory[0].name"`},
		{`{"testHistory":[{"name":"a","status":"passed"},{"name":"a","status":"broken"}]}`, `"testHistory[1].status"`},
		{`{"testHistory":[{"name":"a","status":"passed","timestamp":"yesterday"}]}`, `"testHistory[0].timestamp"`},
		{`{"testHistory":[{"name":"a","status":"passed","timestamp":true}]}`, `"testHistory[0].timestamp"`},
		{`{"testHistory":[{"name":"a","status":"passed","duration":-1}]}`, `"testHistory[0].duration"`},
		{`{"testHistory":[{"name":"a","status":"passed","retries":-1}]}`, `"testHistory[0].retries"`},
		{`{"testHistory":[],"flakinessThreshold":2}`, `"flakinessThreshold"`},
		{`{"testHistory":[],"minRuns":0}`, `"minRuns"`},
		{`{"testHistory":[],"minRuns":"3"}`, `"minRuns"`},
	})
}

func TestPrioritize(t *testing.T) {
	t.Parallel()
	h := `[
		{"name":"A","status":"failed","duration":100,"timestamp":"2024-05-01T00:00:00Z"},
		{"name":"A","status":"passed","duration":100,"timestamp":"2024-05-02T00:00:00Z"},
		{"name":"A","status":"failed","duration":100,"timestamp":"2024-05-03T00:00:00Z"},
		{"name":"B","status":"passed","duration":10},
		{"name":"B","status":"passed","duration":10},
		{"name":"B","status":"passed","duration":10,"changedFilesCovered":true},
		{"name":"C","status":"failed"},{"name":"C","status":"passed"},{"name":"C","status":"passed"},{"name":"C","status":"passed"}]`
	runExamples(t, "test_prioritize", []example{
		// A: failureRate 2/3, recency 1 (last run failed), flakiness 0.867,
		// duration 11/101; B: fastest, covers changed files; C: failed 3 runs
		// ago (recency 0.125), flakiness 0.4, no durations (0.5).
		{"default weights", `{"testHistory":` + h + `}`, `{"count":3,
			"weights":{"failureRate":0.35,"recency":0.25,"flakiness":0.15,"duration":0.1,"changedFiles":0.15},
			"ranked":[
				{"rank":1,"name":"A","score":0.624,"runs":3,"lastStatus":"failed","avgDuration":100,"factors":{
					"failureRate":{"value":0.667,"weight":0.35,"contribution":0.233},
					"recency":{"value":1,"weight":0.25,"contribution":0.25},
					"flakiness":{"value":0.867,"weight":0.15,"contribution":0.13},
					"duration":{"value":0.109,"weight":0.1,"contribution":0.011},
					"changedFiles":{"value":0,"weight":0.15,"contribution":0}}},
				{"rank":2,"name":"B","score":0.25,"runs":3,"lastStatus":"passed","avgDuration":10,"factors":{
					"failureRate":{"value":0,"weight":0.35,"contribution":0},
					"recency":{"value":0,"weight":0.25,"contribution":0},
					"flakiness":{"value":0,"weight":0.15,"contribution":0},
					"duration":{"value":1,"weight":0.1,"contribution":0.1},
					"changedFiles":{"value":1,"weight":0.15,"contribution":0.15}}},
				{"rank":3,"name":"C","score":0.229,"runs":4,"lastStatus":"passed","factors":{
					"failureRate":{"value":0.25,"weight":0.35,"contribution":0.088},
					"recency":{"value":0.125,"weight":0.25,"contribution":0.031},
					"flakiness":{"value":0.4,"weight":0.15,"contribution":0.06},
					"duration":{"value":0.5,"weight":0.1,"contribution":0.05},
					"changedFiles":{"value":0,"weight":0.15,"contribution":0}}}]}`},
		{"empty history", `{"testHistory":[]}`, `{"count":0,"ranked":[],
			"weights":{"failureRate":0.35,"recency":0.25,"flakiness":0.15,"duration":0.1,"changedFiles":0.15}}`},
	})
	// Weights are relative: only failure rate counts, at any scale; omitted
	// weights keep their defaults.
	for _, w := range []string{
		`{"failureRate":1,"recency":0,"flakiness":0,"duration":0,"changedFiles":0}`,
		`{"failureRate":20,"recency":0,"flakiness":0,"duration":0,"changedFiles":0}`,
	} {
		got := tooltest.MustRunObject(t, Tools(), "test_prioritize", `{"testHistory":`+h+`,"weights":`+w+`}`)
		var names []string
		var scores []float64
		for _, r := range got["ranked"].([]any) {
			names = append(names, r.(map[string]any)["name"].(string))
			scores = append(scores, r.(map[string]any)["score"].(float64))
		}
		if !reflect.DeepEqual(names, []string{"A", "C", "B"}) || !reflect.DeepEqual(scores, []float64{0.667, 0.25, 0}) {
			t.Errorf("weights %s: %v %v", w, names, scores)
		}
	}
	got := tooltest.MustRunObject(t, Tools(), "test_prioritize", `{"testHistory":`+h+`,"weights":{"changedFiles":10}}`)
	if first := got["ranked"].([]any)[0].(map[string]any); first["name"] != "B" {
		t.Errorf("changedFiles weight 10 should put B first: %s", tooltest.Marshal(got["ranked"]))
	}
	if !tooltest.SameJSON(t, got["weights"], `{"failureRate":0.35,"recency":0.25,"flakiness":0.15,"duration":0.1,"changedFiles":10}`) {
		t.Errorf("weights %s", tooltest.Marshal(got["weights"]))
	}
}

func TestPrioritizeSingleRunUnicode(t *testing.T) {
	t.Parallel()
	got := tooltest.MustRunObject(t, Tools(), "test_prioritize", `{"testHistory":[{"name":"Überweisung 💸","status":"failed","duration":5}]}`)
	r := got["ranked"].([]any)[0].(map[string]any)
	// failureRate 1, recency 1, flakiness 0 (one outcome), duration 1.
	if r["name"] != "Überweisung 💸" || r["score"] != 0.7 || r["rank"] != 1.0 {
		t.Errorf("single run: %s", tooltest.Marshal(r))
	}
}

func TestPrioritizeBadInput(t *testing.T) {
	t.Parallel()
	runBad(t, "test_prioritize", []badInput{
		{`{}`, `"testHistory"`},
		{`{"testHistory":"x"}`, `"testHistory"`},
		{`{"testHistory":[{"name":"a"}]}`, `"testHistory[0].status"`},
		{`{"testHistory":[{"name":"a","status":"ok"}]}`, `"testHistory[0].status"`},
		{`{"testHistory":[{"name":"a","status":"passed","changedFilesCovered":"yes"}]}`, `"testHistory[0].changedFilesCovered"`},
		{`{"testHistory":[],"weights":{"duration":-1}}`, `"weights.duration"`},
		{`{"testHistory":[],"weights":{"failureRate":"high"}}`, `"weights.failureRate"`},
		{`{"testHistory":[],"weights":{"failureRate":0,"recency":0,"flakiness":0,"duration":0,"changedFiles":0}}`, `"weights"`},
		{`{"testHistory":[],"weights":[1,2]}`, `"weights"`},
	})
}

func TestDeduplicate(t *testing.T) {
	t.Parallel()
	loginSteps := `["open /login","type user","type password","click submit"]`
	searchSteps := `["open home","type shoes in search box","press enter","see results list"]`
	runExamples(t, "test_deduplicate", []example{
		{"worked example", `{"tests":[
			{"name":"login with valid credentials","steps":` + loginSteps + `},
			{"name":"search returns results","steps":` + searchSteps + `},
			{"name":"loginWithValidCredentials","steps":` + loginSteps + `},
			{"name":"logout","steps":["click logout"]},
			{"name":"search shows results","steps":` + searchSteps + `}]}`,
			// search: 12 words each, 11 shared (returns/shows differ), 13 in all.
			`{"totalTests":5,
			"duplicates":[
				{"a":"login with valid credentials","b":"loginWithValidCredentials","similarity":1,"reason":"identical after normalization"},
				{"a":"search returns results","b":"search shows results","similarity":0.846,"reason":"same steps; 11 of 13 distinct words shared"}],
			"groups":[["login with valid credentials","loginWithValidCredentials"],["search returns results","search shows results"]]}`},
		{"threshold 0.9", `{"similarityThreshold":0.9,"tests":[
			{"name":"search returns results","steps":` + searchSteps + `},
			{"name":"search shows results","steps":` + searchSteps + `}]}`,
			`{"totalTests":2,"duplicates":[],"groups":[]}`},
		// Linked pairs form one group though alpha and foxtrot share little.
		{"transitive group", `{"similarityThreshold":0.5,"tests":[
			{"name":"alpha bravo charlie delta"},{"name":"bravo charlie delta echo"},{"name":"charlie delta echo foxtrot"}]}`,
			`{"totalTests":3,
			"duplicates":[
				{"a":"alpha bravo charlie delta","b":"bravo charlie delta echo","similarity":0.6,"reason":"3 of 5 distinct words shared"},
				{"a":"bravo charlie delta echo","b":"charlie delta echo foxtrot","similarity":0.6,"reason":"3 of 5 distinct words shared"}],
			"groups":[["alpha bravo charlie delta","bravo charlie delta echo","charlie delta echo foxtrot"]]}`},
		// check, total, await, page, goto, cart, expect, 42 against verifie
		// (verifies) and the same seven: toBe splits into stop words.
		{"code and assertions", `{"similarityThreshold":0.75,"tests":[
			{"name":"checks total","code":"await page.goto('/cart'); expect(total).toBe(42)","assertions":["total is 42"]},
			{"name":"verifies total","code":"await page.goto('/cart'); expect(total).toBe(42)","assertions":["total is 42"]}]}`,
			`{"totalTests":2,"duplicates":[{"a":"checks total","b":"verifies total","similarity":0.778,
				"reason":"same code, assertions; 7 of 9 distinct words shared"}],
			"groups":[["checks total","verifies total"]]}`},
		{"unicode", `{"tests":[{"name":"Anmeldung mit gültigem Passwort"},{"name":"anmeldung MIT gültigem passwort"},{"name":"登录 成功"}]}`,
			`{"totalTests":3,"duplicates":[{"a":"Anmeldung mit gültigem Passwort","b":"anmeldung MIT gültigem passwort","similarity":1,"reason":"identical after normalization"}],
			"groups":[["Anmeldung mit gültigem Passwort","anmeldung MIT gültigem passwort"]]}`},
		// Names of stop words only have no words to compare.
		{"nothing to compare", `{"similarityThreshold":0,"tests":[{"name":"the test"},{"name":"a test"}]}`,
			`{"totalTests":2,"duplicates":[],"groups":[]}`},
		{"empty", `{"tests":[]}`, `{"totalTests":0,"duplicates":[],"groups":[]}`},
		{"single", `{"tests":[{"name":"only"}]}`, `{"totalTests":1,"duplicates":[],"groups":[]}`},
	})
}

func TestDeduplicateBadInput(t *testing.T) {
	t.Parallel()
	runBad(t, "test_deduplicate", []badInput{
		{`{}`, `"tests"`},
		{`{"tests":[{"steps":["a"]}]}`, `"tests[0].name"`},
		{`{"tests":[{"name":"a","steps":"click"}]}`, `"tests[0].steps"`},
		{`{"tests":[{"name":"a","steps":[1]}]}`, `"tests[0].steps[0]"`},
		{`{"tests":[{"name":"a","code":5}]}`, `"tests[0].code"`},
		{`{"tests":[],"similarityThreshold":1.5}`, `"similarityThreshold"`},
	})
}

func TestTokens(t *testing.T) {
	t.Parallel()
	for in, want := range map[string][]string{
		"loginWithValidCredentials":  {"login", "with", "valid", "credentials"},
		"HTTPServer returns 404":     {"http", "server", "returns", "404"},
		"test_login-2 (e2e)":         {"test", "login", "2", "e2e"},
		"Größe prüfen / ÜBERWEISUNG": {"größe", "prüfen", "überweisung"},
		"नमस्ते दुनिया":              {"नमस्ते", "दुनिया"},
		"":                           nil,
	} {
		if got := tokens(in); !reflect.DeepEqual(got, want) {
			t.Errorf("tokens(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestCoverageGaps(t *testing.T) {
	t.Parallel()
	runExamples(t, "test_coverage_gaps", []example{
		{"worked example", `{"tests":[
			{"name":"login with valid credentials"},
			{"name":"rejects invalid email","tags":["@negative"]},
			{"name":"XSS in comment box","category":"Security"},
			{"name":"page loads"},
			{"name":"username max length 255"},
			{"name":"handles server errors","covers":["checkout API"]}]}`,
			`{"totalTests":6,
			"coverage":{"happy_path":1,"edge_cases":0,"error_handling":2,"security":1,"performance":0,"accessibility":0,"boundary":1,"integration":1},
			"gaps":["edge_cases","performance","accessibility"],
			"weak":["happy_path","security","boundary","integration"],
			"suggestions":[
				"Add edge-case tests: empty, whitespace-only, unicode and emoji input, duplicates (data_edge_cases unicode and empty_values supply values).",
				"Add performance tests: response time of key pages and APIs against a budget, under normal and peak load.",
				"Add accessibility tests: keyboard-only navigation, visible focus and tab order, labels and alt text, colour contrast (WCAG 2.1 AA)."],
			"coveragePercent":62.5,
			"tests":[
				{"name":"login with valid credentials","categories":["happy_path"]},
				{"name":"rejects invalid email","categories":["error_handling"]},
				{"name":"XSS in comment box","categories":["security"]},
				{"name":"page loads","categories":[]},
				{"name":"username max length 255","categories":["boundary"]},
				{"name":"handles server errors","categories":["error_handling","integration"]}],
			"unclassified":["page loads"]}`},
		{"custom categories", `{"categories":["Localization","dark-mode","security","localization"],"tests":[
			{"name":"French localisation renders","tags":["localization"]},
			{"name":"toggle theme","category":"Dark Mode"},
			{"name":"dashboard shows widgets","tags":["darkMode"]}]}`,
			`{"totalTests":3,
			"coverage":{"localization":1,"dark_mode":2,"security":0},
			"gaps":["security"],"weak":["localization"],
			"suggestions":["Add security tests: SQL injection and XSS payloads in every input (data_edge_cases sql_injection, xss), pages and APIs used without login or with another user's session, path traversal."],
			"coveragePercent":66.7,
			"tests":[
				{"name":"French localisation renders","categories":["localization"]},
				{"name":"toggle theme","categories":["dark_mode"]},
				{"name":"dashboard shows widgets","categories":["dark_mode"]}],
			"unclassified":[]}`},
		{"custom gap suggestion", `{"categories":["offline_sync"],"tests":[{"name":"ﾃｽﾄ"}]}`,
			`{"totalTests":1,"coverage":{"offline_sync":0},"gaps":["offline_sync"],"weak":[],
			"suggestions":["Add at least one test for offline sync."],"coveragePercent":0,
			"tests":[{"name":"ﾃｽﾄ","categories":[]}],"unclassified":["ﾃｽﾄ"]}`},
	})
	empty := tooltest.MustRunObject(t, Tools(), "test_coverage_gaps", `{"tests":[]}`)
	if len(empty["gaps"].([]any)) != len(standardCategories) || len(empty["suggestions"].([]any)) != len(standardCategories) ||
		empty["coveragePercent"] != 0.0 || empty["totalTests"] != 0.0 {
		t.Errorf("no tests: %s", tooltest.Marshal(empty))
	}
	// Every standard category is reachable by its keywords and its name.
	var tests []string
	for _, c := range standardCategories {
		tests = append(tests, `{"name":"a `+strings.ReplaceAll(c, "_", " ")+` check"}`, `{"name":"x","category":"`+c+`"}`)
	}
	full := tooltest.MustRunObject(t, Tools(), "test_coverage_gaps", `{"tests":[`+strings.Join(tests, ",")+`]}`)
	if full["coveragePercent"] != 100.0 || len(full["gaps"].([]any)) != 0 || len(full["weak"].([]any)) != 0 {
		t.Errorf("full coverage: %s", tooltest.Marshal(full))
	}
}

func TestCoverageGapsKeywords(t *testing.T) {
	t.Parallel()
	for name, want := range map[string]string{
		"keyboard navigation through menu":   "accessibility",
		"SQL injection in search":            "security",
		"unauthorized user gets 403":         "security",
		"order total at maximum quantity":    "boundary",
		"request timeout shows retry button": "error_handling",
		"emoji in display name":              "edge_cases",
		"checkout end to end":                "integration",
		"p95 latency under 200ms":            "performance",
		"smoke: home page":                   "happy_path",
	} {
		got := tooltest.MustRunObject(t, Tools(), "test_coverage_gaps", `{"tests":[{"name":"`+name+`"}]}`)
		cats := tooltest.Marshal(got["tests"].([]any)[0].(map[string]any)["categories"])
		if cats != `["`+want+`"]` {
			t.Errorf("%q classified as %s, want [%s]", name, cats, want)
		}
	}
}

func TestCoverageGapsBadInput(t *testing.T) {
	t.Parallel()
	runBad(t, "test_coverage_gaps", []badInput{
		{`{}`, `"tests"`},
		{`{"tests":[{"tags":["x"]}]}`, `"tests[0].name"`},
		{`{"tests":[{"name":"a","tags":"x"}]}`, `"tests[0].tags"`},
		{`{"tests":[],"categories":[]}`, `"categories"`},
		{`{"tests":[],"categories":[" - "]}`, `"categories[0]"`},
		{`{"tests":[],"categories":"security"}`, `"categories"`},
	})
}
