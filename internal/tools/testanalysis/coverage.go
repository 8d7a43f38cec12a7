package testanalysis

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/barrhawk/barrhawk/internal/schema"
	"github.com/barrhawk/barrhawk/internal/stats"
	"github.com/barrhawk/barrhawk/internal/tool"
)

// standardCategories is the default QA category set of test_coverage_gaps.
var standardCategories = []string{"happy_path", "edge_cases", "error_handling", "security", "performance",
	"accessibility", "boundary", "integration"}

// categoryKeywords are the words and phrases that put a test in a standard
// category when they appear in its category, tags, covers or name. Matching
// is by whole words after tokens and stem, so "max" does not match "maxwell".
var categoryKeywords = map[string][]string{
	"happy_path": {"happy", "happy path", "golden path", "valid", "success", "successful", "successfully", "basic",
		"smoke", "positive", "nominal", "works", "sanity"},
	"edge_cases": {"edge", "edge case", "corner", "corner case", "unusual", "empty", "blank", "whitespace", "unicode",
		"emoji", "special character", "null", "duplicate", "rare", "unexpected"},
	"error_handling": {"error", "fail", "failure", "failed", "invalid", "exception", "reject", "rejected", "wrong",
		"missing", "timeout", "not found", "404", "500", "throw", "negative", "retry", "fallback", "crash",
		"unavailable", "offline", "recover", "recovery"},
	"security": {"security", "secure", "xss", "csrf", "injection", "sqli", "auth", "authentication", "authorization",
		"authorize", "unauthorized", "unauthenticated", "forbidden", "permission", "access control", "token", "jwt", "csrf token",
		"password policy", "sanitize", "sanitization", "escaping", "traversal", "brute force", "rate limit", "encryption",
		"cors", "csp", "vulnerability", "pentest", "owasp"},
	"performance": {"performance", "perf", "load test", "load testing", "under load", "stress", "latency", "speed", "fast", "slow", "benchmark",
		"throughput", "memory", "cpu", "scalability", "soak", "spike", "response time", "concurrent", "concurrency",
		"lighthouse", "web vitals"},
	"accessibility": {"accessibility", "accessible", "a11y", "aria", "screen reader", "screenreader", "keyboard",
		"contrast", "wcag", "focus", "alt text", "tab order", "axe"},
	"boundary": {"boundary", "limit", "max", "min", "maximum", "minimum", "overflow", "underflow", "length", "range",
		"off by one", "zero", "max length", "threshold", "exceed", "too long", "too short", "too many"},
	"integration": {"integration", "e2e", "end to end", "api", "database", "db", "service", "workflow",
		"external", "third party", "webhook", "contract", "sync", "queue"},
}

// categorySuggestions say what to add for a standard category with no test.
var categorySuggestions = map[string]string{
	"happy_path": "Add a happy-path test: the main user flow with valid input succeeds from start to end.",
	"edge_cases": "Add edge-case tests: empty, whitespace-only, unicode and emoji input, duplicates " +
		"(data_edge_cases unicode and empty_values supply values).",
	"error_handling": "Add error-handling tests: invalid and missing input, server errors (500), timeouts and " +
		"network failures show a clear message and leave the data consistent.",
	"security": "Add security tests: SQL injection and XSS payloads in every input (data_edge_cases sql_injection, " +
		"xss), pages and APIs used without login or with another user's session, path traversal.",
	"performance": "Add performance tests: response time of key pages and APIs against a budget, under normal and peak load.",
	"accessibility": "Add accessibility tests: keyboard-only navigation, visible focus and tab order, labels and " +
		"alt text, colour contrast (WCAG 2.1 AA).",
	"boundary": "Add boundary tests: values at, just below and just above each limit (minimum and maximum length, " +
		"numeric ranges, zero, empty lists); data_edge_cases boundary_numbers and long_strings help.",
	"integration": "Add integration tests: a flow across the front end, API, database and external services, end to end.",
}

// classified is one test and the categories it was put in.
type classified struct {
	Name       string   `json:"name"`
	Categories []string `json:"categories"`
}

func coverageGaps() tool.Tool {
	type args struct {
		Tests      []testCase `json:"tests"`
		Categories []string   `json:"categories"`
	}
	return tool.Tool{
		Def: tool.Def{
			Name: "test_coverage_gaps",
			Description: "Find which kinds of test a suite lacks. Each test is put in every category that its category " +
				"field, tags, covers entries or name point to: the category name itself (spaces, hyphens and " +
				"underscores alike, plural s ignored) or, for the standard categories, keywords such as invalid/error/" +
				"timeout (error_handling), xss/auth/injection (security), max/min/limit (boundary), a11y/aria/keyboard " +
				"(accessibility). Default categories: " + strings.Join(standardCategories, ", ") + ". Returns " +
				"{coverage:{category: test count}, gaps (categories with no test), weak (categories with exactly one), " +
				"suggestions (one per gap), coveragePercent (share of categories with at least one test, 0-100), tests:" +
				"[{name, categories}], unclassified (names in no category), totalTests}.",
			Phrases:  []string{"missing test cases", "what is not tested", "untested areas", "test plan gaps", "what tests to add", "missing security tests", "categorize tests"},
			Group:    Group,
			Category: tool.CategoryUtility,
			Input: schema.Object(
				schema.Array("tests", "The tests of the suite", schema.ObjectItems(
					schema.String("name", "Test name").Min(1).Required(),
					schema.String("category", "Category the author gave the test, if any"),
					schema.Array("tags", "Tags of the test, such as @smoke or security", schema.StringItems()),
					schema.Array("covers", "Features or requirements the test covers", schema.StringItems()),
				)).Required().Max(maxTests),
				schema.Array("categories", "Categories to check; custom names are matched by the words of their name",
					schema.StringItems()).Min(1).Default(standardCategories),
			),
			RequiresWorker: true,
		},
		Run: tool.Typed(func(_ context.Context, in args, _ *tool.Call) (any, error) {
			cats := standardCategories
			if in.Categories != nil {
				if len(in.Categories) == 0 {
					return nil, tool.Errorf(tool.CodeInvalidArgs, "argument \"categories\": expected at least one category, or omit it for the standard set")
				}
				cats = nil
				for i, c := range in.Categories {
					c = canonical(c)
					if c == "" {
						return nil, tool.Errorf(tool.CodeInvalidArgs, "argument \"categories[%d]\": expected a category name with letters or digits", i)
					}
					if !slices.Contains(cats, c) {
						cats = append(cats, c)
					}
				}
			}
			if len(in.Tests) > maxTests {
				return nil, tool.Errorf(tool.CodeInvalidArgs, "argument \"tests\": at most %d tests per call, got %d", maxTests, len(in.Tests))
			}
			matchers := make([][][]string, len(cats))
			for i, c := range cats {
				matchers[i] = phrases(c)
			}
			coverage := map[string]int{}
			for _, c := range cats {
				coverage[c] = 0
			}
			tests := make([]classified, len(in.Tests))
			unclassified := []string{}
			for i, t := range in.Tests {
				if t.Name == "" {
					return nil, tool.Errorf(tool.CodeInvalidArgs, "argument \"tests[%d].name\": is required (a non-empty string)", i)
				}
				words := stems(strings.Join(append(append([]string{t.Category, t.Name}, t.Tags...), t.Covers...), " \n "))
				tests[i] = classified{Name: t.Name, Categories: []string{}}
				for j, c := range cats {
					if canonical(t.Category) == c || slices.ContainsFunc(matchers[j], func(p []string) bool { return containsPhrase(words, p) }) {
						tests[i].Categories = append(tests[i].Categories, c)
						coverage[c]++
					}
				}
				if len(tests[i].Categories) == 0 {
					unclassified = append(unclassified, t.Name)
				}
			}
			gaps, weak, suggestions := []string{}, []string{}, []string{}
			for _, c := range cats {
				switch coverage[c] {
				case 0:
					gaps = append(gaps, c)
					s, ok := categorySuggestions[c]
					if !ok {
						s = fmt.Sprintf("Add at least one test for %s.", strings.ReplaceAll(c, "_", " "))
					}
					suggestions = append(suggestions, s)
				case 1:
					weak = append(weak, c)
				}
			}
			percent := stats.Round(100*float64(len(cats)-len(gaps))/float64(len(cats)), 1)
			return map[string]any{
				"coverage": coverage, "gaps": gaps, "weak": weak, "suggestions": suggestions, "coveragePercent": percent,
				"tests": tests, "unclassified": unclassified, "totalTests": len(in.Tests),
			}, nil
		}),
	}
}

// canonical is a category name in lower case with words joined by
// underscores: "Error Handling" and "error-handling" give error_handling.
func canonical(c string) string {
	return strings.Join(tokens(c), "_")
}

// stems returns the stemmed tokens of text.
func stems(text string) []string {
	t := tokens(text)
	for i, w := range t {
		t[i] = stem(w)
	}
	return t
}

// phrases returns the stemmed word sequences that put a test in category c:
// the category's own name and the keywords of a standard category.
func phrases(c string) [][]string {
	out := [][]string{stems(strings.ReplaceAll(c, "_", " "))}
	for _, k := range categoryKeywords[c] {
		out = append(out, stems(k))
	}
	return out
}

// containsPhrase reports whether words holds phrase as consecutive words.
func containsPhrase(words, phrase []string) bool {
	if len(phrase) == 0 {
		return false
	}
	for i := 0; i+len(phrase) <= len(words); i++ {
		if slices.Equal(words[i:i+len(phrase)], phrase) {
			return true
		}
	}
	return false
}
