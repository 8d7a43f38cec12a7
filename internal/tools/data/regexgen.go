package data

import (
	"errors"
	"math/rand/v2"
	"regexp/syntax"
	"strings"
	"unicode/utf8"
)

// errNoMatch is returned for patterns no string matches, such as [^\x00-\x{10FFFF}].
var errNoMatch = errors.New("pattern matches no string")

// maxPatternOutput bounds the length of a string generated from a pattern.
const maxPatternOutput = 1 << 16

// fromPattern returns a random string that the regular expression (Go RE2
// syntax, as JSON Schema validators in Go use) matches in full. Unbounded
// repetitions (*, +, {n,}) add up to extra repeats beyond their minimum.
func fromPattern(r *rand.Rand, pattern string, extra int) (string, error) {
	re, err := syntax.Parse(pattern, syntax.Perl)
	if err != nil {
		return "", err
	}
	w := &regexWriter{r: r, extra: extra}
	if err := w.write(re.Simplify()); err != nil {
		return "", err
	}
	return w.b.String(), nil
}

// anchored reports whether the pattern must match at the start and at the
// end of the string: ^...$ or \A...\z.
func anchored(pattern string) (start, end bool) {
	re, err := syntax.Parse(pattern, syntax.Perl)
	if err != nil {
		return false, false
	}
	for re.Op == syntax.OpCapture && len(re.Sub) == 1 {
		re = re.Sub[0]
	}
	first, last := re, re
	if re.Op == syntax.OpConcat && len(re.Sub) > 0 {
		first, last = re.Sub[0], re.Sub[len(re.Sub)-1]
	}
	start = first.Op == syntax.OpBeginText || first.Op == syntax.OpBeginLine
	end = last.Op == syntax.OpEndText || last.Op == syntax.OpEndLine
	return start, end
}

type regexWriter struct {
	r     *rand.Rand
	b     strings.Builder
	extra int
}

func (w *regexWriter) write(re *syntax.Regexp) error {
	if w.b.Len() > maxPatternOutput {
		return errors.New("pattern generates strings longer than 64 KiB")
	}
	switch re.Op {
	case syntax.OpNoMatch:
		return errNoMatch
	case syntax.OpEmptyMatch, syntax.OpBeginLine, syntax.OpEndLine, syntax.OpBeginText, syntax.OpEndText,
		syntax.OpWordBoundary, syntax.OpNoWordBoundary:
		return nil
	case syntax.OpLiteral:
		for _, c := range re.Rune {
			w.b.WriteRune(c)
		}
	case syntax.OpCharClass:
		c, ok := w.classRune(re.Rune)
		if !ok {
			return errNoMatch
		}
		w.b.WriteRune(c)
	case syntax.OpAnyChar, syntax.OpAnyCharNotNL:
		w.b.WriteByte(alnum[w.r.IntN(len(alnum))])
	case syntax.OpCapture:
		return w.write(re.Sub[0])
	case syntax.OpStar:
		return w.repeat(re.Sub[0], 0, w.extra)
	case syntax.OpPlus:
		return w.repeat(re.Sub[0], 1, 1+w.extra)
	case syntax.OpQuest:
		return w.repeat(re.Sub[0], 0, 1)
	case syntax.OpRepeat:
		hi := re.Max
		if hi < 0 {
			hi = re.Min + w.extra
		}
		return w.repeat(re.Sub[0], re.Min, hi)
	case syntax.OpConcat:
		for _, s := range re.Sub {
			if err := w.write(s); err != nil {
				return err
			}
		}
	case syntax.OpAlternate:
		// Try the alternatives in a random order: one may match nothing.
		order := w.r.Perm(len(re.Sub))
		var err error
		for _, i := range order {
			mark := w.b.String()
			if err = w.write(re.Sub[i]); err == nil {
				return nil
			}
			w.b.Reset()
			w.b.WriteString(mark)
		}
		return err
	default:
		return errors.New("unsupported regular expression operator " + re.Op.String())
	}
	return nil
}

func (w *regexWriter) repeat(re *syntax.Regexp, lo, hi int) error {
	n := lo
	if hi > lo {
		n = between(w.r, lo, hi)
	}
	for range n {
		if err := w.write(re); err != nil {
			return err
		}
	}
	return nil
}

const alnum = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"

// classRune picks a rune of the class given as sorted lo-hi pairs,
// preferring letters and digits, then printable ASCII, then anything valid.
func (w *regexWriter) classRune(ranges []rune) (rune, bool) {
	in := func(c rune) bool {
		for i := 0; i+1 < len(ranges); i += 2 {
			if c >= ranges[i] && c <= ranges[i+1] {
				return true
			}
		}
		return false
	}
	for _, set := range []string{alnum, " !\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~"} {
		var cands []rune
		for _, c := range set {
			if in(c) {
				cands = append(cands, c)
			}
		}
		if len(cands) > 0 {
			return cands[w.r.IntN(len(cands))], true
		}
	}
	// No ASCII: pick within a random range, skipping surrogates and control
	// characters.
	order := w.r.Perm(len(ranges) / 2)
	for _, i := range order {
		lo, hi := ranges[2*i], ranges[2*i+1]
		for range 16 {
			c := lo + rune(w.r.Int64N(int64(hi-lo)+1))
			if utf8.ValidRune(c) && c >= 0x20 {
				return c, true
			}
		}
	}
	return 0, false
}
