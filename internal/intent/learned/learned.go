// Package learned is the part of intent analysis learned from labelled
// requests rather than written as rules: for each tool, a logistic model
// over a request's words, its word pairs and the tools the rules chose
// for it, which says how likely the request needs that tool. The analyzer
// adds the tools the model finds likely and the rules did not give: the
// set-up and checks that QA engineers take for granted and phrase in
// ways no rule reads (a page opened before a form, a list of pull
// requests before a review, the text check after a step).
//
// The model is trained on the dev split of the findeval requests
// (internal/doctor/testdata/findeval) and embedded here as model.json.gz;
// it is never trained on the test or held-out splits. Train rebuilds it
// the same way every time: the same examples give the same weights.
package learned

import (
	"bytes"
	"compress/gzip"
	_ "embed"
	"encoding/json"
	"fmt"
	"math"
	"regexp"
	"slices"
	"strings"
	"sync"
)

// Threshold is the probability over which a tool is added. Chosen by
// cross-validation on the dev split: lower, the sets left out gained
// recall at more than a point of precision.
const Threshold = 0.35

// Model is a trained model: per feature, the weights it gives each tool.
type Model struct {
	// Data is the SHA-256 of the examples it was trained on
	// (Fingerprint), so that a model left behind by changed rules or
	// data is noticed.
	Data string `json:"data"`
	// Tools are the tools it knows, in the order of each weight list.
	Tools []string `json:"tools"`
	// Position is each tool's mean place in the labelled requests, from
	// 0 (first step) to 1 (last), to put an added tool where it is
	// usually called.
	Position []float64 `json:"position"`
	// Weights are, per feature, pairs of a tool's index in Tools and its
	// weight in thousandths; weights under a pruning bound are left out.
	Weights map[string][]int32 `json:"weights"`
}

// Likely is a tool the model adds, with its probability.
type Likely struct {
	Tool        string
	Probability float64
	// Position is where the tool usually comes, 0 first to 1 last.
	Position float64
}

//go:embed model.json.gz
var embedded []byte

var (
	loadOnce sync.Once
	loaded   *Model
	loadErr  error
)

// Embedded is the model built into the binary.
func Embedded() (*Model, error) {
	loadOnce.Do(func() { loaded, loadErr = Decode(embedded) })
	return loaded, loadErr
}

// Decode reads a model written by Encode.
func Decode(b []byte) (*Model, error) {
	zr, err := gzip.NewReader(bytes.NewReader(b))
	if err != nil {
		return nil, fmt.Errorf("learned model: %w", err)
	}
	var m Model
	if err := json.NewDecoder(zr).Decode(&m); err != nil {
		return nil, fmt.Errorf("learned model: %w", err)
	}
	if len(m.Position) != len(m.Tools) {
		return nil, fmt.Errorf("learned model: %d positions for %d tools", len(m.Position), len(m.Tools))
	}
	for f, ws := range m.Weights {
		if len(ws)%2 != 0 {
			return nil, fmt.Errorf("learned model: feature %q has an odd weight list", f)
		}
		for i := 0; i < len(ws); i += 2 {
			if ws[i] < 0 || int(ws[i]) >= len(m.Tools) {
				return nil, fmt.Errorf("learned model: feature %q names tool %d of %d", f, ws[i], len(m.Tools))
			}
		}
	}
	return &m, nil
}

// Encode writes the model, gzipped JSON.
func (m *Model) Encode() ([]byte, error) {
	var buf bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	if err := json.NewEncoder(zw).Encode(m); err != nil {
		return nil, fmt.Errorf("learned model: %w", err)
	}
	if err := zw.Close(); err != nil {
		return nil, fmt.Errorf("learned model: %w", err)
	}
	return buf.Bytes(), nil
}

// Add returns the tools the model finds likely (over Threshold) to meet
// a need of a request, given the tools the rules chose, leaving out those chosen
// and those have does not accept (tools this server lacks).
func (m *Model) Add(text string, chosen []string, have func(string) bool) []Likely {
	z := make([]float64, len(m.Tools))
	for _, f := range Features(text, chosen) {
		ws := m.Weights[f]
		for i := 0; i < len(ws); i += 2 {
			z[ws[i]] += float64(ws[i+1]) / 1000
		}
	}
	var out []Likely
	for i, t := range m.Tools {
		p := 1 / (1 + math.Exp(-z[i]))
		if p > Threshold && !slices.Contains(chosen, t) && have(t) {
			out = append(out, Likely{Tool: t, Probability: math.Round(p*100) / 100, Position: m.Position[i]})
		}
	}
	return out
}

var wordRE = regexp.MustCompile(`[a-z][a-z0-9_]*`)

// stem strips a common English ending: a crude stemmer, enough for the
// model to see "clicks" and "clicking" as "click".
func stem(w string) string {
	for _, s := range []string{"ing", "ed", "es", "s"} {
		if len(w) > len(s)+3 && strings.HasSuffix(w, s) {
			return w[:len(w)-len(s)]
		}
	}
	return w
}

// Features are what the model reads of a request: each word's stem
// ("w:"), each pair of neighbouring stems ("b:"), each tool the rules
// chose ("r:"), and a constant ("bias").
func Features(text string, chosen []string) []string {
	seen := map[string]bool{}
	var out []string
	add := func(f string) {
		if !seen[f] {
			seen[f] = true
			out = append(out, f)
		}
	}
	prev := ""
	for _, w := range wordRE.FindAllString(strings.ToLower(text), -1) {
		w = stem(w)
		add("w:" + w)
		if prev != "" {
			add("b:" + prev + "_" + w)
		}
		prev = w
	}
	for _, t := range chosen {
		add("r:" + t)
	}
	add("bias")
	return out
}

// PositionOf is where a tool usually comes in a request's steps, 0 first
// to 1 last, when the model knows the tool.
func (m *Model) PositionOf(name string) (float64, bool) {
	i, ok := slices.BinarySearch(m.Tools, name)
	if !ok {
		return 0, false
	}
	return m.Position[i], true
}
