// Package search ranks tools for a request written the way an agent or a
// person asks ("checksum of a string", "which containers are up", "which
// tests are flaky"), so that a client shown only a few tools can find and
// call any.
//
// Ranking is BM25 over fields of different weight: a tool's name, its
// Phrases (the words people use for it, written with the tool) and the
// first sentence of its description count most; the rest of the
// description less; its arguments' names and descriptions little, and not
// at all for an argument that many tools share (testName, timeout,
// selector): text every tool has says nothing of what one is for. A rare
// word found only in that lesser text counts less again: it may be there
// by chance ("twice", "given"). Words
// are split (snake_case too, and camelCase in argument names), reduced to
// their stems, the
// domain's names for one thing made one (vocab.go), and filler words
// dropped. Dynamic tools and hosted servers' tools are indexed the same
// way from what they declare.
package search

import (
	"math"
	"slices"
	"strings"

	"github.com/barrhawk/barrhawk/internal/tool"
)

// BM25 parameters: k1 bounds how much repeating a word adds; b how much a
// long document is discounted.
const (
	k1 = 0.9
	b  = 0.4
)

// Field weights: how much one word of each field counts.
const (
	weightName      = 3.0
	weightPhrase    = 2.0
	weightSummary   = 2.0 // the description's first sentence
	weightGroup     = 0.8 // the docs heading and the category
	weightRest      = 0.6 // the rest of the description
	weightArgName   = 0.5
	weightArgText   = 0.25  // an argument's description and enum values
	weightExactHit  = 100.0 // a query that is a tool's name
	weightValue     = 1.0   // the kind of a value in the query (a file, a URL)
	weightValueName = 0.2   // a word of a value's name (order.schema.json)
	weightCover     = 3.0   // a query that says all of a tool's name
	weightAsked     = 0.6   // a tool that changes things, for a question that changes nothing
	weightLead      = 2.0   // a tool whose name holds the verb a request begins with
	weightWeak      = 0.6   // the share a word counts that is only in a tool's lesser text
	weightWhy       = 0.4   // a word of what the request is for ("so the wizard starts over"), not of what it asks
	weightNot       = 0.2   // a word the request says not to do ("don't release it yet", "no click")
)

// sharedArg is how many tools may have an argument of one name before
// the argument is taken to say nothing of what any of them is for.
const sharedArg = 3

// Hit is one ranked tool.
type Hit struct {
	Tool  *tool.Tool
	Score float64
}

// Index ranks a fixed set of tools. Build a new one when the set changes;
// an Index is safe for concurrent searches.
type Index struct {
	tools    []*tool.Tool
	postings map[string]*postingList
	norm     []float64 // per tool: k1*(1-b+b*len/avgLen)
	names    map[string]int
	// nameTerms are each tool's name's terms, for weightCover; named are
	// the tools whose names hold a term.
	nameTerms [][]string
	named     map[string][]int32
	// changes: the tool's name says it changes something (create,
	// merge, delete, ...; not workflow_runs, snapshots), for a
	// question's mood.
	changes []bool
}

// postingList are the tools a term is in, and the term's inverse
// document frequency.
type postingList struct {
	idf float64
	ps  []posting
}

type posting struct {
	doc int32
	tf  float32 // weighted term frequency
	// weak: the term is only in the tool's lesser text (the rest of its
	// description, its arguments), where a rare word may be there by
	// chance ("twice", "given"), for weightWeak.
	weak bool
}

// New indexes tools.
func New(tools []*tool.Tool) *Index {
	shared := sharedArgs(tools)
	ix := &Index{tools: tools, postings: map[string]*postingList{}, norm: make([]float64, len(tools)), names: map[string]int{}, named: map[string][]int32{}}
	lens := make([]float64, len(tools))
	total := 0.0
	for i, t := range tools {
		ix.names[strings.ToLower(t.Name)] = i
		tf := map[string]float64{}
		strong := map[string]bool{}
		add := func(terms []string, w float64) {
			for _, term := range terms {
				tf[term] += w
				lens[i] += w
				strong[term] = strong[term] || w >= weightGroup
			}
		}
		nameTerms := identTerms(t.Name)
		add(nameTerms, weightName)
		ix.changes = append(ix.changes, slices.ContainsFunc(strings.Split(t.Name, "_"), func(part string) bool { return changeVerbs[part] }))
		slices.Sort(nameTerms)
		nameTerms = slices.Compact(nameTerms)
		ix.nameTerms = append(ix.nameTerms, nameTerms)
		for _, term := range nameTerms {
			ix.named[term] = append(ix.named[term], int32(i))
		}
		for _, p := range t.Phrases {
			add(Terms(p), weightPhrase)
		}
		summary, rest := splitSummary(t.Description)
		add(noNumbers(Terms(summary)), weightSummary)
		add(noNumbers(Terms(rest)), weightRest)
		add(Terms(t.Group), weightGroup)
		add(Terms(string(t.Category)), weightGroup)
		if t.Input != nil {
			for name, p := range t.Input.Properties {
				if shared[name] {
					continue
				}
				add(identTerms(name), weightArgName)
				if p == nil {
					continue
				}
				add(noNumbers(Terms(p.Description)), weightArgText)
				for _, e := range p.Enum {
					if s, ok := e.(string); ok {
						add(Terms(s), weightArgText)
					}
				}
			}
		}
		for term, f := range tf {
			pl := ix.postings[term]
			if pl == nil {
				pl = &postingList{}
				ix.postings[term] = pl
			}
			pl.ps = append(pl.ps, posting{doc: int32(i), tf: float32(f), weak: !strong[term]})
		}
		total += lens[i]
	}
	n := float64(len(tools))
	for _, pl := range ix.postings {
		df := float64(len(pl.ps))
		pl.idf = math.Log(1 + (n-df+0.5)/(df+0.5))
	}
	avg := 1.0
	if len(tools) > 0 && total > 0 {
		avg = total / float64(len(tools))
	}
	for i := range tools {
		ix.norm[i] = k1 * (1 - b + b*lens[i]/avg)
	}
	return ix
}

// noNumbers drops the numbers of a tool's prose: "draft 2020-12",
// "ports 1-65535" and "max 100" say how the tool works, and a request's
// own numbers (a date, a count) matching them is chance.
func noNumbers(terms []string) []string {
	return slices.DeleteFunc(terms, func(t string) bool {
		return strings.TrimFunc(t, func(r rune) bool { return r >= '0' && r <= '9' }) == ""
	})
}

// sharedArgs are the argument names more than sharedArg tools have.
func sharedArgs(tools []*tool.Tool) map[string]bool {
	count := map[string]int{}
	for _, t := range tools {
		if t.Input != nil {
			for name := range t.Input.Properties {
				count[name]++
			}
		}
	}
	shared := map[string]bool{}
	for name, n := range count {
		if n > sharedArg {
			shared[name] = true
		}
	}
	return shared
}

// splitSummary cuts a description after its first sentence.
func splitSummary(desc string) (summary, rest string) {
	for i := 0; i < len(desc); i++ {
		if c := desc[i]; (c == '.' || c == '!' || c == '?') && (i+1 == len(desc) || desc[i+1] == ' ' || desc[i+1] == '\n') {
			return desc[:i+1], desc[i+1:]
		}
	}
	return desc, ""
}

// Search returns up to limit tools for query, best first; only tools of
// category when it is not empty. A query naming a tool exactly puts it
// first.
func (ix *Index) Search(query string, limit int, category tool.Category) []Hit {
	query = unlabel(query)
	scores := make([]float64, len(ix.tools))
	best := map[int32]float64{}
	qs := ix.weigh(query)
	for _, q := range qs {
		ix.wordScores(q, best)
		for doc, s := range best {
			scores[doc] += s
		}
	}
	if i, ok := ix.names[strings.ToLower(strings.TrimSpace(query))]; ok {
		scores[i] += weightExactHit
	}
	w := ix.whole(query, qs)
	top := 0.0
	for i, s := range scores {
		if s != 0 {
			scores[i] = w.apply(ix, i, s)
			top = max(top, scores[i])
		}
	}
	// A request about the tools themselves ("which tool can take a
	// screenshot?") is for the tool that answers it, whatever work it
	// names.
	if i, ok := ix.names[Form(query)]; ok {
		scores[i] = max(scores[i], top) + 1
	}
	return ix.best(scores, limit, category)
}

// best are the tools of category with a score, best first, at most
// limit (all when limit is 0).
func (ix *Index) best(scores []float64, limit int, category tool.Category) []Hit {
	var hits []Hit
	less := func(a, b Hit) bool {
		if a.Score != b.Score {
			return a.Score > b.Score
		}
		return a.Tool.Name < b.Tool.Name
	}
	for i, s := range scores {
		if s <= 0 || category != "" && ix.tools[i].Category != category {
			continue
		}
		h := Hit{Tool: ix.tools[i], Score: s}
		if limit > 0 && len(hits) == limit {
			if !less(h, hits[limit-1]) {
				continue
			}
			hits = hits[:limit-1]
		}
		// Insert in order: limit is small.
		j := len(hits)
		hits = append(hits, h)
		for ; j > 0 && less(h, hits[j-1]); j-- {
			hits[j] = hits[j-1]
		}
		hits[j] = h
	}
	return hits
}

// wholeQuery is what a query says as a whole, beside its words: of each
// tool's name, the weight of the words it says (for the share said) and
// of the verb it begins with; and whether it asks to see rather than to
// change.
type wholeQuery struct {
	said, lead map[int32]float64
	asks       bool
}

func (ix *Index) whole(query string, qs [][]variant) wholeQuery {
	w := wholeQuery{said: map[int32]float64{}, asks: asks(query)}
	said := map[string]float64{}
	for _, q := range qs {
		for _, v := range q {
			said[v.term] = max(said[v.term], v.weight)
		}
	}
	for term, weight := range said {
		for _, i := range ix.named[term] {
			w.said[i] += weight
		}
	}
	if lead := leadTerms(query); lead != nil {
		w.lead = map[int32]float64{}
		for term, weight := range lead {
			for _, i := range ix.named[term] {
				w.lead[i] = max(w.lead[i], weight)
			}
		}
	}
	return w
}

// apply is tool i's score s with what the whole query says:
//   - the share of its name's words the query says (of gh_file_read and
//     gh_branch_create, "read a file from the main branch" says all of the
//     first's name and two thirds of the second's), weightCover at all;
//   - the verb the query begins with in its name, weightLead;
//   - a question that changes nothing, for a tool that changes things,
//     weightAsked of it all.
func (w wholeQuery) apply(ix *Index, i int, s float64) float64 {
	if n := len(ix.nameTerms[i]); n > 0 {
		f := w.said[int32(i)] / float64(n)
		s += weightCover*f*f + weightLead*w.lead[int32(i)]
	}
	if w.asks && ix.changes[i] {
		s *= weightAsked
	}
	return s
}

// wordScores sets best to what one query word adds to each tool it
// matches. A word counts once per tool, by the best of its variants
// (itself, its related words): a tool that lists five words for "hash" is
// not five times about it.
func (ix *Index) wordScores(q []variant, best map[int32]float64) {
	clear(best)
	for _, v := range q {
		if pl := ix.postings[v.term]; pl != nil {
			for _, p := range pl.ps {
				if s := ix.score(v, pl.idf, p); s > best[p.doc] {
					best[p.doc] = s
				}
			}
		}
	}
}

// score is BM25's share of one posting of a query word's variant.
func (ix *Index) score(v variant, idf float64, p posting) float64 {
	f := float64(p.tf)
	s := v.weight * idf * f * (k1 + 1) / (f + ix.norm[p.doc])
	if p.weak {
		s *= weightWeak
	}
	return s
}

// variant is a term a query word is matched by, and its weight.
type variant struct {
	term   string
	weight float64
}

// weigh reads a query into its words, each with its variants: the word
// itself and the words related to it (weightNear); then the words the
// query's values are named by (weightValueName) and the kinds of those
// values (weightValue), one word each.
func (ix *Index) weigh(query string) [][]variant {
	var out [][]variant
	seen := map[string]bool{}
	words, kinds, names := valuesAndNames(query)
	what, why := purpose(words)
	what, not := negated(what)
	for _, part := range [...]struct {
		text string
		w    float64
	}{{what, 1}, {why, weightWhy}, {not, weightNot}} {
		for _, t := range Terms(part.text) {
			if seen[t] {
				continue
			}
			seen[t] = true
			vs := []variant{{t, part.w}}
			for _, r := range related[t] {
				vs = append(vs, variant{r, part.w * weightNear})
			}
			out = append(out, vs)
		}
	}
	for _, t := range Terms(names) {
		if !seen[t] {
			seen[t] = true
			out = append(out, []variant{{t, weightValueName}})
		}
	}
	for _, k := range kinds {
		if !seen[k] {
			seen[k] = true
			out = append(out, []variant{{k, weightValue}})
		}
	}
	return out
}

// Explain lists what each word of query adds to the score of the tool
// named name, for tuning: the word → its best variant's score, and
// "(the query as a whole)" → what the name said, the leading verb and a
// question's mood add (or take away). Their sum is the score, but for a
// query that is the tool's name.
func (ix *Index) Explain(query, name string) map[string]float64 {
	i, ok := ix.names[strings.ToLower(name)]
	if !ok {
		return nil
	}
	query = unlabel(query)
	out := map[string]float64{}
	best := map[int32]float64{}
	qs := ix.weigh(query)
	sum := 0.0
	for _, q := range qs {
		ix.wordScores(q, best)
		if s, ok := best[int32(i)]; ok {
			out[q[0].term] = s
			sum += s
		}
	}
	if sum > 0 {
		out["(the query as a whole)"] = ix.whole(query, qs).apply(ix, i, sum) - sum
	}
	return out
}
