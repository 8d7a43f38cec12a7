package testanalysis

import (
	"strings"
	"unicode"
)

// tokens splits text into lower-case words: runs of letters and digits, with
// camelCase and PascalCase split (loginWithEmail gives login, with, email).
func tokens(text string) []string {
	var out []string
	var cur []rune
	flush := func() {
		if len(cur) > 0 {
			out = append(out, strings.ToLower(string(cur)))
			cur = cur[:0]
		}
	}
	rs := []rune(text)
	for i, c := range rs {
		if !unicode.IsLetter(c) && !unicode.IsDigit(c) && !unicode.Is(unicode.Mn, c) && !unicode.Is(unicode.Mc, c) {
			flush()
			continue
		}
		if len(cur) > 0 && unicode.IsUpper(c) {
			prev := cur[len(cur)-1]
			nextLower := i+1 < len(rs) && unicode.IsLower(rs[i+1])
			// fooBar -> foo|Bar; HTTPServer -> HTTP|Server
			if unicode.IsLower(prev) || unicode.IsDigit(prev) || unicode.IsUpper(prev) && nextLower {
				flush()
			}
		}
		cur = append(cur, c)
	}
	flush()
	return out
}

// stem folds a simple English plural to its singular, so "errors" matches
// "error": a trailing "s" is dropped from words longer than three letters
// that do not end in "ss".
func stem(w string) string {
	if len(w) > 3 && strings.HasSuffix(w, "s") && !strings.HasSuffix(w, "ss") {
		return w[:len(w)-1]
	}
	return w
}

// stopWords carry no meaning for similarity.
var stopWords = map[string]bool{
	"a": true, "an": true, "the": true, "to": true, "of": true, "and": true, "or": true, "is": true, "are": true,
	"be": true, "it": true, "should": true, "test": true, "that": true, "this": true, "in": true, "on": true,
	"for": true, "with": true,
}
