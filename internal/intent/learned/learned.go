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
// (internal/doctor/testdata/findeval) and embedded here as model.bin.gz;
// it is never trained on the test or held-out splits. Train rebuilds it
// the same way every time: the same examples give the same weights.
package learned

import (
	"bytes"
	"compress/gzip"
	_ "embed"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"maps"
	"math"
	"slices"
	"strings"
	"sync"
)

// Threshold is the probability over which a tool is added. Chosen by
// cross-validation on the dev split: the lowest at which the sets left
// out kept the precision of the single model at 0.35 (lower, they gained
// recall at more than a point of precision).
const Threshold = 0.28

// Model is a trained model: per feature, the weights it gives each tool.
type Model struct {
	// Data is the SHA-256 of the examples it was trained on
	// (Fingerprint), so that a model left behind by changed rules or
	// data is noticed.
	Data string
	// Tools are the tools it knows, sorted, in the order of each weight
	// list.
	Tools []string
	// Position is each tool's mean place in the labelled requests, from
	// 0 (first step) to 1 (last), to put an added tool where it is
	// usually called.
	Position []float64
	// Weights are, per feature, pairs of a tool's index in Tools and its
	// weight in thousandths; weights under a pruning bound are left out.
	Weights map[string][]int32
}

// Likely is a tool the model adds, with its probability.
type Likely struct {
	Tool        string
	Probability float64
	// Position is where the tool usually comes, 0 first to 1 last.
	Position float64
}

//go:embed model.bin.gz
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

// magic begins an encoded model, with the format's version.
const magic = "barrhawk intent model 1\n"

// Decode reads a model written by Encode.
func Decode(b []byte) (*Model, error) {
	zr, err := gzip.NewReader(bytes.NewReader(b))
	if err != nil {
		return nil, fmt.Errorf("learned model: %w", err)
	}
	raw, err := io.ReadAll(zr)
	if err != nil {
		return nil, fmt.Errorf("learned model: %w", err)
	}
	m, err := decode(raw)
	if err != nil {
		return nil, fmt.Errorf("learned model: %w", err)
	}
	return m, nil
}

// errShort says an encoded model ends before its last feature.
var errShort = errors.New("cut short or damaged")

// decode reads the format Encode writes: the magic line, the data's
// fingerprint, the tools with their positions in thousandths, then each
// feature with its pairs of a tool's index and a weight in thousandths;
// strings and counts as uvarints, weights as varints.
func decode(b []byte) (*Model, error) {
	rest, ok := bytes.CutPrefix(b, []byte(magic))
	if !ok {
		return nil, fmt.Errorf("not a model of this format (want it to begin %q)", strings.TrimSpace(magic))
	}
	bad := false
	num := func() int {
		v, n := binary.Uvarint(rest)
		if n <= 0 || v > uint64(len(b)) {
			bad, rest = true, nil
			return 0
		}
		rest = rest[n:]
		return int(v)
	}
	str := func() string {
		n := num()
		if n > len(rest) {
			bad, rest = true, nil
			return ""
		}
		s := string(rest[:n])
		rest = rest[n:]
		return s
	}
	m := &Model{Data: str()}
	m.Tools = make([]string, num())
	m.Position = make([]float64, len(m.Tools))
	for i := range m.Tools {
		m.Tools[i], m.Position[i] = str(), float64(num())/1000
	}
	features := num()
	m.Weights = make(map[string][]int32, features)
	for range features {
		f := str()
		ws := make([]int32, 2*num())
		for i := 0; i < len(ws) && !bad; i += 2 {
			ws[i] = int32(num())
			w, n := binary.Varint(rest)
			if n <= 0 {
				bad = true
				break
			}
			rest, ws[i+1] = rest[n:], int32(w)
			if int(ws[i]) >= len(m.Tools) {
				return nil, fmt.Errorf("feature %q names tool %d of %d", f, ws[i], len(m.Tools))
			}
		}
		if bad {
			return nil, errShort
		}
		m.Weights[f] = ws
	}
	if bad || len(rest) > 0 {
		return nil, errShort
	}
	return m, nil
}

// Encode writes the model, gzipped (decode says the format), its
// features in sorted order so that the same model gives the same bytes.
func (m *Model) Encode() ([]byte, error) {
	var raw []byte
	num := func(v int) { raw = binary.AppendUvarint(raw, uint64(v)) }
	str := func(s string) { num(len(s)); raw = append(raw, s...) }
	raw = append(raw, magic...)
	str(m.Data)
	num(len(m.Tools))
	for i, t := range m.Tools {
		str(t)
		num(int(math.Round(m.Position[i] * 1000)))
	}
	num(len(m.Weights))
	for _, f := range slices.Sorted(maps.Keys(m.Weights)) {
		ws := m.Weights[f]
		str(f)
		num(len(ws) / 2)
		for i := 0; i+1 < len(ws); i += 2 {
			num(int(ws[i]))
			raw = binary.AppendVarint(raw, int64(ws[i+1]))
		}
	}
	var buf bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	zw.Write(raw)
	if err := zw.Close(); err != nil {
		return nil, fmt.Errorf("learned model: %w", err)
	}
	return buf.Bytes(), nil
}

// Add returns the tools the model finds likely (over Threshold) to meet
// a need of a request, given the tools the rules chose; it leaves out
// those chosen and those have does not accept (tools this server lacks).
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

// words are the runs of a letter then letters, digits or underscores
// (ASCII) of a lowercased text.
func words(text string) []string {
	var out []string
	for i := 0; i < len(text); {
		if c := text[i]; c < 'a' || c > 'z' {
			i++
			continue
		}
		j := i + 1
		for j < len(text) && (text[j] >= 'a' && text[j] <= 'z' || text[j] >= '0' && text[j] <= '9' || text[j] == '_') {
			j++
		}
		out = append(out, text[i:j])
		i = j
	}
	return out
}

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

// Features are what the model reads of a request, each once and sorted:
// each word's stem ("w:"), each pair of neighbouring stems ("b:"), each
// tool the rules chose ("r:"), and a constant ("bias").
func Features(text string, chosen []string) []string {
	ws := words(strings.ToLower(text))
	out := make([]string, 0, 2*len(ws)+len(chosen)+1)
	prev := ""
	for _, w := range ws {
		w = stem(w)
		out = append(out, "w:"+w)
		if prev != "" {
			out = append(out, "b:"+prev+"_"+w)
		}
		prev = w
	}
	for _, t := range chosen {
		out = append(out, "r:"+t)
	}
	out = append(out, "bias")
	slices.Sort(out)
	return slices.Compact(out) // each once, in one order
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
