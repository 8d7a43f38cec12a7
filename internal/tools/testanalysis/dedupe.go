package testanalysis

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/barrhawk/barrhawk/internal/schema"
	"github.com/barrhawk/barrhawk/internal/stats"
	"github.com/barrhawk/barrhawk/internal/testreport"
	"github.com/barrhawk/barrhawk/internal/tool"
)

const defaultSimilarityThreshold = 0.8

// testCase is a test as test_deduplicate and test_coverage_gaps receive it.
type testCase struct {
	Name       string   `json:"name"`
	Steps      []string `json:"steps"`
	Code       string   `json:"code"`
	Assertions []string `json:"assertions"`
	Category   string   `json:"category"`
	Tags       []string `json:"tags"`
	Covers     []string `json:"covers"`

	// title, for a test read from a report, is its own title, compared
	// instead of Name (which holds its suite too).
	title string
}

// duplicate is one pair of test_deduplicate's duplicates.
type duplicate struct {
	A          string  `json:"a"`
	B          string  `json:"b"`
	Similarity float64 `json:"similarity"`
	Reason     string  `json:"reason"`
}

// fingerprint is a test reduced for comparison.
type fingerprint struct {
	// set is the sorted ids of the test's distinct tokens.
	set []int
	// name, steps, code and assertions are normalized texts, for reasons.
	name, steps, code, assertions string
}

func deduplicate() tool.Tool {
	type args struct {
		Tests               []testCase        `json:"tests"`
		Source              testreport.Source `json:"source"`
		SourceFormat        string            `json:"sourceFormat"`
		SimilarityThreshold *float64          `json:"similarityThreshold"`
	}
	return tool.Tool{
		Def: tool.Def{
			Name: "test_deduplicate",
			Description: "Find near-duplicate tests. Each test's name, steps, code and assertions are normalized to a set of " +
				"lower-case word tokens (camelCase split, punctuation and common stop words such as the, should, test " +
				"dropped); the similarity of two tests is the Jaccard index of their sets, |A∩B|/|A∪B|, in [0,1]. Pairs " +
				"at or above similarityThreshold are duplicates. Returns {duplicates:[{a, b, similarity, reason}] most " +
				"similar first, groups (lists of test names linked by duplicate pairs, each list in input order), " +
				"totalTests, sources?}. Instead of tests, source reads a test report (JUnit XML, TAP, go test -json, " +
				"Playwright or Jest JSON): its distinct tests, named suite > title, are compared by their titles only, " +
				"as a report holds no steps or code.",
			Phrases:  []string{"duplicate tests", "redundant tests", "similar test cases", "prune test suite", "overlapping tests", "copy-pasted tests", "tests that check the same thing twice", "tests that are copies of each other"},
			Group:    Group,
			Category: tool.CategoryUtility,
			Input: schema.Object(
				schema.Array("tests", "The tests to compare; or give source", schema.ObjectItems(
					schema.String("name", "Test name").Min(1).Required(),
					schema.Array("steps", "Test steps in words, in order", schema.StringItems()),
					schema.String("code", "Test source code"),
					schema.Array("assertions", "What the test checks", schema.StringItems()),
				)).Max(maxTests),
				testreport.SourceProp("source", "tests"),
				testreport.FormatProp(),
				schema.Number("similarityThreshold", "Smallest similarity (0 to 1) for a pair to be reported").
					Min(0).Max(1).Default(defaultSimilarityThreshold),
			),
			RequiresWorker: true,
			UsesRoots:      true,
		},
		Run: tool.Typed(func(ctx context.Context, in args, _ *tool.Call) (any, error) {
			var sources []testreport.SourceInfo
			switch {
			case in.Tests != nil && in.Source != nil:
				return nil, tool.Errorf(tool.CodeInvalidArgs, "arguments \"tests\" and \"source\": give one of them, not both")
			case in.Tests == nil && in.Source == nil:
				return nil, tool.Errorf(tool.CodeInvalidArgs, "argument \"tests\": is required, or give source (a test report)")
			case in.Source != nil:
				reps, err := loadReports(ctx, in.Source, in.SourceFormat)
				if err != nil {
					return nil, err
				}
				in.Tests, sources = testsOf(reps), testreport.Infos(reps)
				if len(in.Tests) > maxTests {
					return nil, tool.Errorf(tool.CodeInvalidArgs, "argument \"source\": at most %d distinct tests per call, the reports hold %d", maxTests, len(in.Tests))
				}
			case in.SourceFormat != "":
				return nil, tool.Errorf(tool.CodeInvalidArgs, "argument \"sourceFormat\": is the format of source, which is not given")
			}
			threshold := defaultSimilarityThreshold
			if in.SimilarityThreshold != nil {
				threshold = *in.SimilarityThreshold
			}
			if threshold < 0 || threshold > 1 {
				return nil, tool.Errorf(tool.CodeInvalidArgs, "argument \"similarityThreshold\": expected 0 to 1, got %v", threshold)
			}
			if len(in.Tests) > maxTests {
				return nil, tool.Errorf(tool.CodeInvalidArgs, "argument \"tests\": at most %d tests per call, got %d", maxTests, len(in.Tests))
			}
			ids := map[string]int{}
			fps := make([]fingerprint, len(in.Tests))
			for i, t := range in.Tests {
				if t.Name == "" {
					return nil, tool.Errorf(tool.CodeInvalidArgs, "argument \"tests[%d].name\": is required (a non-empty string)", i)
				}
				fps[i] = fingerprintOf(t, ids)
			}
			dups := []duplicate{}
			parent := make([]int, len(in.Tests))
			for i := range parent {
				parent[i] = i
			}
			var find func(int) int
			find = func(i int) int {
				if parent[i] != i {
					parent[i] = find(parent[i])
				}
				return parent[i]
			}
			for i := range fps {
				if ctx.Err() != nil {
					return nil, tool.Errorf(tool.CodeCancelled, "cancelled")
				}
				for j := i + 1; j < len(fps); j++ {
					sim := jaccard(fps[i].set, fps[j].set)
					if sim < threshold || sim == 0 {
						continue
					}
					dups = append(dups, duplicate{A: in.Tests[i].Name, B: in.Tests[j].Name, Similarity: stats.Round(sim, 3), Reason: reason(fps[i], fps[j], sim)})
					if a, b := find(i), find(j); a != b {
						parent[max(a, b)] = min(a, b)
					}
				}
			}
			slices.SortStableFunc(dups, func(x, y duplicate) int { return cmp.Compare(y.Similarity, x.Similarity) })
			members := map[int][]string{}
			var roots []int
			for i, t := range in.Tests {
				r := find(i)
				if _, ok := members[r]; !ok {
					roots = append(roots, r)
				}
				members[r] = append(members[r], t.Name)
			}
			groups := [][]string{}
			for _, r := range roots {
				if len(members[r]) > 1 {
					groups = append(groups, members[r])
				}
			}
			out := map[string]any{"duplicates": dups, "groups": groups, "totalTests": len(in.Tests)}
			if sources != nil {
				out["sources"] = sources
			}
			return out, nil
		}),
	}
}

// testsOf is the distinct tests of reports, in order of first appearance.
func testsOf(reps []*testreport.Report) []testCase {
	seen := map[string]bool{}
	out := []testCase{}
	for _, rep := range reps {
		for i := range rep.Results {
			r := &rep.Results[i]
			if id := r.ID(); !seen[id] {
				seen[id] = true
				out = append(out, testCase{Name: id, title: r.Name})
			}
		}
	}
	return out
}

// normalize returns the meaningful tokens of text joined by spaces.
func normalize(text string) string {
	var out []string
	for _, w := range tokens(text) {
		if stopWords[w] {
			continue
		}
		if w = stem(w); !stopWords[w] {
			out = append(out, w)
		}
	}
	return strings.Join(out, " ")
}

func fingerprintOf(t testCase, ids map[string]int) fingerprint {
	fp := fingerprint{
		name:       normalize(cmp.Or(t.title, t.Name)),
		steps:      normalize(strings.Join(t.Steps, "\n")),
		code:       normalize(t.Code),
		assertions: normalize(strings.Join(t.Assertions, "\n")),
	}
	seen := map[int]bool{}
	for _, part := range []string{fp.name, fp.steps, fp.code, fp.assertions} {
		for _, w := range strings.Fields(part) {
			id, ok := ids[w]
			if !ok {
				id = len(ids)
				ids[w] = id
			}
			if !seen[id] {
				seen[id] = true
				fp.set = append(fp.set, id)
			}
		}
	}
	slices.Sort(fp.set)
	return fp
}

// jaccard is |a∩b|/|a∪b| of two sorted sets; 0 when both are empty.
func jaccard(a, b []int) float64 {
	if len(a)+len(b) == 0 {
		return 0
	}
	common := overlap(a, b)
	return float64(common) / float64(len(a)+len(b)-common)
}

// overlap is |a∩b| of two sorted sets.
func overlap(a, b []int) int {
	common := 0
	for i, j := 0, 0; i < len(a) && j < len(b); {
		switch {
		case a[i] == b[j]:
			common++
			i++
			j++
		case a[i] < b[j]:
			i++
		default:
			j++
		}
	}
	return common
}

// reason says why two tests look alike.
func reason(a, b fingerprint, sim float64) string {
	if sim == 1 && a.name == b.name && a.steps == b.steps && a.code == b.code && a.assertions == b.assertions {
		return "identical after normalization"
	}
	var same []string
	for _, p := range []struct{ what, x, y string }{
		{"name", a.name, b.name}, {"steps", a.steps, b.steps}, {"code", a.code, b.code}, {"assertions", a.assertions, b.assertions},
	} {
		if p.x != "" && p.x == p.y {
			same = append(same, p.what)
		}
	}
	common := overlap(a.set, b.set)
	union := len(a.set) + len(b.set) - common
	r := fmt.Sprintf("%d of %d distinct words shared", common, union)
	if len(same) > 0 {
		r = "same " + strings.Join(same, ", ") + "; " + r
	}
	return r
}
