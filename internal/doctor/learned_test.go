package doctor

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/barrhawk/barrhawk/internal/intent"
	"github.com/barrhawk/barrhawk/internal/intent/learned"
	"github.com/barrhawk/barrhawk/internal/tools/builtin"
)

// modelFile is the built-in intent model, relative to this package.
var modelFile = filepath.Join("..", "intent", "learned", "model.bin.gz")

// rulesOnly is the Doctor's analyzer without the learned model.
func rulesOnly(d *Doctor) *intent.Analyzer {
	a := d.newAnalyzer()
	a.Learned, a.Cache = nil, false
	return a
}

// modelSets are the dev split's intent sets, each a file's requests with
// the tools the rules give them: what the built-in model is trained on.
func modelSets(t testing.TB, d *Doctor) [][]learned.Example {
	t.Helper()
	a := rulesOnly(d)
	files, _ := filepath.Glob(filepath.Join("testdata", "findeval", "intent-dev-*.json"))
	if len(files) == 0 {
		t.Fatal("no intent dev split in testdata/findeval")
	}
	var sets [][]learned.Example
	for _, f := range files {
		var set []learned.Example
		for _, c := range loadFile[intentCase](t, f) {
			r := a.Text(c.Q)
			set = append(set, learned.Example{Text: r.Read, Chosen: r.SuggestedTools, Want: c.Want})
		}
		sets = append(sets, set)
	}
	return sets
}

// TestIntentModel checks that the built-in model was trained on today's
// dev split and the answers today's rules give it (UPDATE_MODEL=1
// retrains it), and reports how the model does on dev sets it was not
// trained on: trained on five sixths of the sets, asked the rest.
func TestIntentModel(t *testing.T) {
	t.Parallel()
	d := newSearchDoctor(t)
	sets := modelSets(t, d)
	examples := slices.Concat(sets...)
	m, err := learned.Embedded()
	if os.Getenv("UPDATE_MODEL") != "" {
		b, werr := learned.Train(examples).Encode()
		if werr == nil {
			werr = os.WriteFile(modelFile, b, 0o644)
		}
		if werr != nil {
			t.Fatal(werr)
		}
		t.Logf("wrote %s (%d bytes) from %d requests", modelFile, len(b), len(examples))
		m, err = learned.Decode(b) // what the next build embeds
	}
	if err != nil {
		t.Fatal(err)
	}
	if m.Data != learned.Fingerprint(examples) {
		t.Errorf("the built-in intent model was trained on other requests, or other answers of the rules, than the dev split and the rules give today; retrain it: UPDATE_MODEL=1 go test ./internal/doctor -run TestIntentModel")
	}
	if len(m.Tools) < 100 || len(m.Weights) < 1000 {
		t.Errorf("the model knows %d tools and %d features; a model trained on the dev split knows over 100 and 1,000", len(m.Tools), len(m.Weights))
	}
	for _, name := range m.Tools {
		if _, ok := d.Registry().Get(name); !ok {
			t.Errorf("the model knows %s, which is no tool", name)
		}
	}

	// Leave sets out: every sixth set of the dev split is asked of a
	// model trained on the others.
	var rules, with intentScore
	for k := range 6 {
		var train, held []learned.Example
		for n, set := range sets {
			if n%6 == k {
				held = append(held, set...)
			} else {
				train = append(train, set...)
			}
		}
		fold := learned.Train(train)
		for _, e := range held {
			rules.add(e.Want, e.Chosen)
			got := slices.Clone(e.Chosen)
			for _, l := range fold.Add(e.Text, e.Chosen, func(string) bool { return true }) {
				got = append(got, l.Tool)
			}
			with.add(e.Want, got)
		}
	}
	t.Logf("intent_analyze, dev split with sets left out of the model's training: rules alone recall %.3f, precision %.3f; with the model %.3f, %.3f",
		rules.recall(), rules.precision(), with.recall(), with.precision())
	if with.recall() <= rules.recall() {
		t.Errorf("on dev sets it was not trained on, the model adds no recall: %.3f with it, %.3f without", with.recall(), rules.recall())
	}
	if with.recall() < modelFloor.recall || with.precision() < modelFloor.precision {
		t.Errorf("on dev sets it was not trained on, with the model: recall %.3f (floor %.3f), precision %.3f (floor %.3f)",
			with.recall(), modelFloor.recall, with.precision(), modelFloor.precision)
	}
}

// TestLearnedStepsAreMarked checks the example of docs/tool-search.md: the
// file a page's text is compared with is read, a step no rule gave, marked
// likely, with no words, where a read comes.
func TestLearnedStepsAreMarked(t *testing.T) {
	t.Parallel()
	d := newSearchDoctor(t)
	d.intent.Cache = false
	r := d.intent.Text("compare the checkout page text with what we saved in snapshots/checkout.txt")
	var order []string
	for _, s := range r.Steps {
		order = append(order, s.Tool)
		if s.Tool == "fs_read" && (s.Likely <= learned.Threshold || s.Words != "") {
			t.Errorf("fs_read should be the model's, marked likely with no words: %+v", s)
		}
		if s.Tool != "fs_read" && s.Likely != 0 {
			t.Errorf("%s is the rules', not marked likely: %+v", s.Tool, s)
		}
	}
	if want := []string{"browser_navigate", "fs_read", "browser_get_text", "string_diff"}; !slices.Equal(order, want) {
		t.Errorf("steps %v, want %v (docs/tool-search.md shows them)", order, want)
	}
	// intent.learned: false gives the rules' answer alone.
	cfg := searchConfig(t)
	cfg.Intent.Learned = false
	off := newDoctorWith(t, cfg, builtin.Tools())
	if got := off.intent.Text("compare the checkout page text with what we saved in snapshots/checkout.txt").SuggestedTools; slices.Contains(got, "fs_read") {
		t.Errorf("with intent.learned false, the analysis still gave the model's fs_read: %v", got)
	}
}
