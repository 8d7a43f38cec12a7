package intent

import (
	"fmt"
	"os"
	"testing"
)

// TestZZLex prints the tokens and clauses of ZZ_LEX (debug only).
func TestZZLex(t *testing.T) {
	q := os.Getenv("ZZ_LEX")
	if q == "" {
		t.Skip()
	}
	for _, c := range split(lex(q)) {
		var s []string
		for _, k := range c.tokens {
			s = append(s, fmt.Sprintf("%s/%s/%d", k.text, k.stem, k.kind))
		}
		fmt.Println("CLAUSE", c.about, s)
	}
}
