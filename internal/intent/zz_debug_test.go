package intent

import (
	"fmt"
	"os"
	"slices"
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

func TestZZSet(t *testing.T) {
	q := os.Getenv("INTENT_Q")
	if q == "" {
		t.Skip()
	}
	for _, c := range split(lex(q)) {
		var ks []string
		for k := range c.set {
			ks = append(ks, k)
		}
		fmt.Printf("%q %v\n", c.words, ks)
	}
}

func TestZZApply(t *testing.T) {
	q := os.Getenv("INTENT_Q")
	if q == "" {
		t.Skip()
	}
	for _, c := range split(lex(q)) {
		for _, x := range rules {
			if slices.Contains(x.tools, "data_from_schema") {
				fmt.Println(x.in, c.hasAny(x.when), c.hasAny(x.and), c.hasAny(x.unless), x.unless)
			}
		}
		fmt.Println(apply(c, c.about))
	}
}
