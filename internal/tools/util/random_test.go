package util

import (
	"fmt"
	"slices"
	"testing"

	"github.com/barrhawk/barrhawk/internal/tool/tooltest"
)

func TestRandomChoiceSeeded(t *testing.T) {
	t.Parallel()
	// Pinned results: the same seed gives the same picks.
	for _, tc := range []struct{ args, want string }{
		{`{"items":["a","b","c","d","e"],"count":5,"seed":1}`, `{"choices":["e","a","b","c","d"],"indices":[4,0,1,2,3],"seed":1}`},
		{`{"items":["a","b","c"],"count":6,"unique":false,"seed":7}`, `{"choices":["b","a","b","a","c","c"],"indices":[1,0,1,0,2,2],"seed":7}`},
		{`{"items":[1,"a",{"b":2},null],"count":3,"seed":42}`, `{"choices":[1,null,"a"],"indices":[0,3,1],"seed":42}`},
		{`{"items":["x"],"seed":-3}`, `{"choices":["x"],"indices":[0],"seed":-3}`},
		{`{"items":[10,20,30,40],"seed":9007199254740991}`, `{"choices":[40],"indices":[3],"seed":9007199254740991}`},
		{`{"items":["ünï","😀"],"count":2,"seed":5}`, ``},
	} {
		got := run(t, "random_choice", tc.args)
		if tc.want != "" {
			tooltest.WantJSON(t, "random_choice"+tc.args, got, tc.want)
		}
		if again := run(t, "random_choice", tc.args); tooltest.Marshal(again) != tooltest.Marshal(got) {
			t.Errorf("random_choice(%s) not reproducible: %s then %s", tc.args, tooltest.Marshal(got), tooltest.Marshal(again))
		}
	}
}

func TestRandomChoiceUnique(t *testing.T) {
	t.Parallel()
	for seed := range 50 {
		got := run(t, "random_choice", fmt.Sprintf(`{"items":[0,1,2,3,4,5,6,7,8,9],"count":10,"seed":%d}`, seed))
		var picked []int
		for i, c := range got["choices"].([]any) {
			n := int(c.(float64))
			if idx := int(got["indices"].([]any)[i].(float64)); idx != n {
				t.Fatalf("seed %d: choice %d is item %d, indices say %d", seed, i, n, idx)
			}
			picked = append(picked, n)
		}
		slices.Sort(picked)
		if !slices.Equal(picked, []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}) {
			t.Fatalf("seed %d: unique picks of all 10 items = %v, want a permutation", seed, got["choices"])
		}
	}
}

func TestRandomChoiceSpread(t *testing.T) {
	t.Parallel()
	seen := map[string]int{}
	for seed := range 200 {
		got := run(t, "random_choice", fmt.Sprintf(`{"items":["a","b","c","d"],"seed":%d}`, seed))
		c := got["choices"].([]any)
		if len(c) != 1 {
			t.Fatalf("default count: got %d choices, want 1", len(c))
		}
		seen[c[0].(string)]++
	}
	for _, item := range []string{"a", "b", "c", "d"} {
		if seen[item] < 20 { // expected 50 each
			t.Errorf("item %s picked %d times in 200 seeds: %v", item, seen[item], seen)
		}
	}
}

func TestRandomChoiceUnseeded(t *testing.T) {
	t.Parallel()
	got := run(t, "random_choice", `{"items":["a","b","c"],"count":2}`)
	seed, ok := got["seed"].(float64)
	if !ok || seed < 0 || seed > 1<<53-1 || seed != float64(int64(seed)) {
		t.Fatalf("seed = %v, want an integer in [0, 2^53)", got["seed"])
	}
	replay := run(t, "random_choice", fmt.Sprintf(`{"items":["a","b","c"],"count":2,"seed":%d}`, int64(seed)))
	if tooltest.Marshal(replay) != tooltest.Marshal(got) {
		t.Errorf("replaying seed %d: %s, first run %s", int64(seed), tooltest.Marshal(replay), tooltest.Marshal(got))
	}
}

func TestRandomChoiceBadInput(t *testing.T) {
	t.Parallel()
	checkBad(t, []badInput{
		{"random_choice", `{}`, []string{`"items"`, "required"}},
		{"random_choice", `{"items":[]}`, []string{`"items"`, "at least 1"}},
		{"random_choice", `{"items":"abc"}`, []string{`"items"`, "expected array"}},
		{"random_choice", `{"items":[1,2,3],"count":4}`, []string{`"count"`, "maximum is 3", "unique"}},
		{"random_choice", `{"items":[1,2,3],"count":0}`, []string{`"count"`, ">= 1"}},
		{"random_choice", `{"items":[1],"count":10001,"unique":false}`, []string{`"count"`, "<= 10000"}},
		{"random_choice", `{"items":[1],"count":1.5}`, []string{`"count"`, "expected integer"}},
		{"random_choice", `{"items":[1],"unique":"yes"}`, []string{`"unique"`, "expected boolean"}},
		{"random_choice", `{"items":[1],"seed":"42"}`, []string{`"seed"`, "expected integer"}},
		{"random_choice", `{"items":[1],"seed":9007199254740992}`, []string{`"seed"`, "<="}},
	})
}

func TestRandomChoiceWholeFloats(t *testing.T) {
	t.Parallel()
	tooltest.WantJSON(t, "count 2.0, seed 1.0", run(t, "random_choice", `{"items":["a","b","c","d","e"],"count":5.0,"seed":1.0}`),
		`{"choices":["e","a","b","c","d"],"indices":[4,0,1,2,3],"seed":1}`)
}
