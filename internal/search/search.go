// Package search ranks tools for a request written the way an agent or a
// person asks ("checksum of a string", "fake users", "which tests are
// flaky"), so that a client shown only a few tools can find and call any.
//
// Ranking is BM25 over each tool's name, group, category, description and
// argument names and descriptions, with the name weighted most. Query
// words are lower-cased, split at anything but letters and digits (so
// snake_case names split too), reduced to a stem, stripped of filler words,
// and widened with the synonyms agents use for what a tool does (synonyms.go).
package search

import (
	"math"
	"slices"
	"sort"
	"strings"
	"unicode"

	"github.com/barrhawk/barrhawk/internal/tool"
)

// BM25 parameters: k1 bounds how much repeating a word adds; b how much a
// long document is discounted.
const (
	k1 = 1.2
	b  = 0.75
)

// Field weights: a word in the name counts as this many in the description.
const (
	weightName        = 3.0
	weightGroup       = 1.5
	weightDescription = 1.0
	weightArgs        = 0.6
	weightSynonym     = 0.7 // a synonym's share of a query word's score
)

// Hit is one ranked tool.
type Hit struct {
	Tool  *tool.Tool
	Score float64
}

// Index ranks a fixed set of tools. Build a new one when the set changes;
// an Index is safe for concurrent searches.
type Index struct {
	docs   []doc
	df     map[string]int // documents holding each term
	avgLen float64
}

type doc struct {
	t   *tool.Tool
	tf  map[string]float64 // weighted term frequency
	len float64
}

// New indexes tools.
func New(tools []*tool.Tool) *Index {
	ix := &Index{df: map[string]int{}}
	total := 0.0
	for _, t := range tools {
		d := doc{t: t, tf: map[string]float64{}}
		add := func(text string, w float64) {
			for _, term := range Terms(text) {
				d.tf[term] += w
				d.len += w
			}
		}
		add(t.Name, weightName)
		add(t.Group, weightGroup)
		add(string(t.Category), weightGroup)
		add(t.Description, weightDescription)
		if t.Input != nil {
			for name, p := range t.Input.Properties {
				add(name, weightArgs)
				if p != nil {
					add(p.Description, weightArgs)
					for _, e := range p.Enum {
						if s, ok := e.(string); ok {
							add(s, weightArgs)
						}
					}
				}
			}
		}
		for term := range d.tf {
			ix.df[term]++
		}
		total += d.len
		ix.docs = append(ix.docs, d)
	}
	if len(ix.docs) > 0 {
		ix.avgLen = total / float64(len(ix.docs))
	}
	return ix
}

// Search returns up to limit tools for query, best first; only tools of
// category when it is not empty. A query naming a tool exactly puts it
// first.
func (ix *Index) Search(query string, limit int, category tool.Category) []Hit {
	weights := expand(Terms(query))
	raw := strings.TrimSpace(strings.ToLower(query))
	n := float64(len(ix.docs))
	var hits []Hit
	for _, d := range ix.docs {
		if category != "" && d.t.Category != category {
			continue
		}
		score := 0.0
		for term, qw := range weights {
			f := d.tf[term]
			if f == 0 {
				continue
			}
			df := float64(ix.df[term])
			idf := math.Log(1 + (n-df+0.5)/(df+0.5))
			score += qw * idf * f * (k1 + 1) / (f + k1*(1-b+b*d.len/ix.avgLen))
		}
		if raw == d.t.Name {
			score += 100
		}
		if score > 0 {
			hits = append(hits, Hit{Tool: d.t, Score: score})
		}
	}
	sort.SliceStable(hits, func(i, j int) bool {
		if hits[i].Score != hits[j].Score {
			return hits[i].Score > hits[j].Score
		}
		return hits[i].Tool.Name < hits[j].Tool.Name
	})
	if limit > 0 && len(hits) > limit {
		hits = hits[:limit]
	}
	return hits
}

// expand weighs the query's terms and their synonyms; a synonym never
// outweighs a word the query has itself.
func expand(terms []string) map[string]float64 {
	w := map[string]float64{}
	for _, t := range terms {
		w[t] = 1
	}
	for _, t := range terms {
		for _, s := range synonyms[t] {
			for _, st := range Terms(s) {
				if w[st] < weightSynonym {
					w[st] = weightSynonym
				}
			}
		}
	}
	return w
}

// Terms splits text into search terms: lower-cased runs of letters and
// digits, stemmed, without filler words.
func Terms(text string) []string {
	words := strings.FieldsFunc(strings.ToLower(text), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	})
	out := words[:0]
	for _, w := range words {
		if stopWords[w] {
			continue
		}
		out = append(out, Stem(w))
	}
	return slices.Clip(out)
}

// Stem reduces a word to a crude stem, so that "tests", "testing" and
// "tested" meet: enough for tool descriptions, which are short. Short stems
// are not cut further ("string" stays whole).
func Stem(w string) string {
	n := len(w)
	switch {
	case n <= 3:
	case strings.HasSuffix(w, "ies") && n > 4:
		return w[:n-3] + "y"
	case strings.HasSuffix(w, "sses"), strings.HasSuffix(w, "uses"), strings.HasSuffix(w, "ches"), strings.HasSuffix(w, "shes"), strings.HasSuffix(w, "xes"), strings.HasSuffix(w, "zes"):
		return w[:n-2]
	case strings.HasSuffix(w, "ing") && n-3 >= 4:
		return w[:n-3]
	case strings.HasSuffix(w, "ed") && n-2 >= 4:
		return w[:n-2]
	case strings.HasSuffix(w, "s") && !strings.HasSuffix(w, "ss") && !strings.HasSuffix(w, "us") && !strings.HasSuffix(w, "is"):
		return w[:n-1]
	}
	return w
}

// stopWords carry no meaning for finding a tool.
var stopWords = map[string]bool{}

func init() {
	for _, w := range strings.Fields(`a an the to of for in on at by with from into and or is are be
		i me my we our you your it its this that these those some any all
		want need like would could should can please let lets how do does what which who
		get got give use using tool tools something thing way`) {
		stopWords[w] = true
	}
}
