// Package closest finds the names nearest a misspelt one, for errors that
// say what was meant: an unknown tool, an unknown argument.
package closest

import (
	"slices"
	"strings"
)

// Names returns up to n of candidates close to name, nearest first: within
// an edit distance of max(2, len(name)/3), or starting with name, or (for a
// name of four letters or more) containing it.
func Names(name string, candidates []string, n int) []string {
	type cand struct {
		name string
		dist int
	}
	var cands []cand
	for _, c := range candidates {
		d := Distance(name, c)
		if d <= max(2, len(name)/3) || strings.HasPrefix(c, name) || len(name) >= 4 && strings.Contains(c, name) {
			cands = append(cands, cand{c, d})
		}
	}
	slices.SortStableFunc(cands, func(a, b cand) int { return a.dist - b.dist })
	out := make([]string, 0, min(n, len(cands)))
	for _, c := range cands[:min(n, len(cands))] {
		out = append(out, c.name)
	}
	return out
}

// Distance is the Levenshtein distance between a and b, in bytes.
func Distance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
