package intent

import (
	"fmt"
	"os"
	"strings"
	"testing"
)

func TestZZClauses(t *testing.T) {
	q := os.Getenv("INTENT_Q")
	if q == "" {
		t.Skip()
	}
	for _, line := range strings.Split(q, "\n") {
		cs := split(lex(line))
		for _, c := range cs {
			var ks []string
			for k := range c.set {
				if strings.HasPrefix(k, "<") {
					ks = append(ks, k)
				}
			}
			fmt.Printf("[%b] %q %v\n", c.about, c.words, ks)
		}
	}
}
