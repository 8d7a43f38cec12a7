package text

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"regexp/syntax"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/barrhawk/barrhawk/internal/schema"
	"github.com/barrhawk/barrhawk/internal/tool"
)

// MaxRegexMatches is the most matches regex_test lists; more set truncated.
const MaxRegexMatches = 1000

// regexMatch is one match of a regex_test result.
type regexMatch struct {
	Match       string         `json:"match"`
	Index       int            `json:"index"`
	ByteIndex   int            `json:"byteIndex"`
	Groups      []any          `json:"groups"`
	NamedGroups map[string]any `json:"namedGroups"`
}

// regexResult is what regex_test returns.
type regexResult struct {
	Matched    bool         `json:"matched"`
	MatchCount int          `json:"matchCount"`
	Truncated  bool         `json:"truncated"`
	Matches    []regexMatch `json:"matches"`
	Replaced   *string      `json:"replaced,omitempty"`
	Pattern    string       `json:"pattern"`
}

func regexTest() tool.Tool {
	type args struct {
		Pattern string  `json:"pattern"`
		Text    string  `json:"text"`
		Flags   string  `json:"flags"`
		Replace *string `json:"replace"`
	}
	return tool.Tool{
		Def: tool.Def{
			Name: "regex_test",
			Description: "Test a regular expression against text. The pattern uses Go RE2 syntax (like JavaScript/PCRE, " +
				"but without lookahead/lookbehind, backreferences or atomic groups; named groups are (?<name>...) or (?P<name>...)); " +
				"pass the bare pattern, not /pattern/flags. Flags are JavaScript-style: i (case-insensitive), m (^ and $ match at " +
				"line breaks), s (. matches newline), g (all matches; without g only the first). Returns {matched, matchCount, " +
				"truncated, matches: [{match, index, byteIndex, groups, namedGroups}], replaced?, pattern}: matchCount counts every match, index is the offset in " +
				"Unicode characters (code points), byteIndex in UTF-8 bytes; groups lists capture groups 1..n (null when a group did " +
				fmt.Sprintf("not take part); at most %d matches are listed and truncated says when matchCount is larger. ", MaxRegexMatches) +
				"With replace, replaced is the text with the first match (all matches with g) replaced; pattern is the Go regexp actually compiled.",
			Phrases:  []string{"regexp match", "capture groups", "regex replace", "extract with regex", "grep pattern", "find all matches", "does pattern match", "check my pattern against sample strings", "does this pattern match these"},
			Group:    Group,
			Category: tool.CategoryUtility,
			Input: schema.Object(
				schema.String("pattern", "Regular expression in Go RE2 syntax, without surrounding slashes").Required(),
				schema.String("text", "Text to search").Required(),
				schema.String("flags", "JavaScript-style flags, any of the letters i, m, s, g (for example \"gi\")").Default(""),
				schema.String("replace", "Replacement text; references as in JavaScript: $& whole match, $1..$99 numbered groups, "+
					"$<name> named groups (${1} and ${name} also work), $` text before the match, $' text after it, $$ a literal $"),
			),
			RequiresWorker: true,
		},
		Run: tool.Typed(func(_ context.Context, in args, _ *tool.Call) (any, error) {
			re, global, err := compileJS(in.Pattern, in.Flags)
			if err != nil {
				return nil, err
			}
			var repl []replPiece
			if in.Replace != nil {
				if repl, err = parseReplacement(*in.Replace, re); err != nil {
					return nil, err
				}
			}
			limit := 1
			if global {
				limit = -1
			}
			locs := re.FindAllStringSubmatchIndex(in.Text, limit)
			res := &regexResult{Matched: len(locs) > 0, Matches: []regexMatch{}, Pattern: re.String()}
			names := re.SubexpNames()
			runeOff, byteOff := 0, 0 // running code-point offset, for the index of each match
			for i, loc := range locs {
				if i == MaxRegexMatches {
					res.Truncated = true
					break
				}
				runeOff += utf8.RuneCountInString(in.Text[byteOff:loc[0]])
				byteOff = loc[0]
				m := regexMatch{Match: in.Text[loc[0]:loc[1]], Index: runeOff, ByteIndex: loc[0], Groups: []any{}, NamedGroups: map[string]any{}}
				for g := 1; g < len(loc)/2; g++ {
					var v any // null when the group did not take part
					if loc[2*g] >= 0 {
						v = in.Text[loc[2*g]:loc[2*g+1]]
					}
					m.Groups = append(m.Groups, v)
					if names[g] != "" {
						m.NamedGroups[names[g]] = v
					}
				}
				res.Matches = append(res.Matches, m)
			}
			res.MatchCount = len(locs)
			if in.Replace != nil {
				s := replaceAll(in.Text, locs, repl)
				res.Replaced = &s
			}
			return res, nil
		}),
	}
}

// compileJS compiles pattern with JavaScript-style flags, explaining
// constructs RE2 does not support.
func compileJS(pattern, flags string) (*regexp.Regexp, bool, error) {
	var global bool
	var goFlags string
	for _, f := range flags {
		switch f {
		case 'g':
			global = true
		case 'i', 'm', 's':
			if !strings.ContainsRune(goFlags, f) {
				goFlags += string(f)
			}
		default:
			return nil, false, tool.Errorf(tool.CodeInvalidArgs, "argument \"flags\": unknown flag %q in %q; use any of i, m, s, g", f, flags)
		}
	}
	expr := pattern
	if goFlags != "" {
		expr = "(?" + goFlags + ")" + pattern
	}
	re, err := regexp.Compile(expr)
	if err == nil {
		return re, global, nil
	}
	var se *syntax.Error
	if errors.As(err, &se) {
		if what, hint := unsupported(se); what != "" {
			return nil, false, tool.Errorf(tool.CodeInvalidArgs,
				"argument \"pattern\": %s is not supported: patterns use Go RE2 syntax, which has no lookahead, lookbehind, backreferences or atomic groups; %s (%v)", what, hint, err)
		}
	}
	return nil, false, tool.Errorf(tool.CodeInvalidArgs, "argument \"pattern\": not a valid Go RE2 regular expression: %v", err)
}

// unsupported names the JavaScript/PCRE construct behind a parse error and
// suggests a way around it; what is "" when the error is not about one.
func unsupported(se *syntax.Error) (what, hint string) {
	const around = "capture the wider text with a group instead, or test the condition with a second regex_test call"
	e := se.Expr
	switch {
	case strings.HasPrefix(e, "(?="):
		return "lookahead (?=...)", around
	case strings.HasPrefix(e, "(?!"):
		return "negative lookahead (?!...)", around
	case strings.HasPrefix(e, "(?<="):
		return "lookbehind (?<=...)", around
	case strings.HasPrefix(e, "(?<!"):
		return "negative lookbehind (?<!...)", around
	case strings.HasPrefix(e, "(?>"):
		return "atomic group (?>...)", "use a plain group (?:...)"
	case len(e) == 2 && e[0] == '\\' && e[1] >= '1' && e[1] <= '9':
		return "backreference " + e, "capture both parts and compare the groups yourself"
	case e == `\k`:
		return `named backreference \k<name>`, "capture both parts and compare the groups yourself"
	case e == `\u`:
		return `the \uXXXX escape`, `write \x{XXXX} instead`
	case e == `\c`:
		return `the control escape \cX`, `write \x{01}..\x{1F} instead`
	case se.Code == syntax.ErrInvalidRepeatOp && len(e) == 2 && e[1] == '+':
		return "possessive quantifier " + e, "drop the extra +"
	}
	return "", ""
}

// replPiece is one part of a parsed replacement: literal text, or a group
// reference (group >= 0), or the text before (-2) or after (-3) the match.
type replPiece struct {
	lit   string
	group int
}

const (
	replLiteral = -1
	replBefore  = -2
	replAfter   = -3
)

// parseReplacement parses a JavaScript-style replacement string, checking
// that every group it refers to exists.
func parseReplacement(s string, re *regexp.Regexp) ([]replPiece, error) {
	var pieces []replPiece
	var lit strings.Builder
	flush := func() {
		if lit.Len() > 0 {
			pieces = append(pieces, replPiece{lit: lit.String(), group: replLiteral})
			lit.Reset()
		}
	}
	ref := func(g int) { flush(); pieces = append(pieces, replPiece{group: g}) }
	groups := re.NumSubexp()
	bad := func(format string, a ...any) error {
		return tool.Errorf(tool.CodeInvalidArgs, "argument \"replace\": "+format+"; use $$ for a literal $", a...)
	}
	named := func(name string) (int, error) {
		if n, err := strconv.Atoi(name); err == nil && n >= 0 {
			if n > groups {
				return 0, bad("${%d} refers to group %d but the pattern has %s", n, n, groupCount(groups))
			}
			return n, nil
		}
		if g := re.SubexpIndex(name); g >= 0 {
			return g, nil
		}
		return 0, bad("refers to group %q but the pattern has no group of that name", name)
	}
	for i := 0; i < len(s); {
		if s[i] != '$' || i+1 == len(s) {
			lit.WriteByte(s[i])
			i++
			continue
		}
		c := s[i+1]
		switch {
		case c == '$':
			lit.WriteByte('$')
			i += 2
		case c == '&':
			ref(0)
			i += 2
		case c == '`':
			ref(replBefore)
			i += 2
		case c == '\'':
			ref(replAfter)
			i += 2
		case c >= '0' && c <= '9':
			if i+2 < len(s) && s[i+2] >= '0' && s[i+2] <= '9' {
				if g := int(c-'0')*10 + int(s[i+2]-'0'); g >= 1 && g <= groups {
					ref(g)
					i += 3
					continue
				}
			}
			g := int(c - '0')
			if g > groups {
				return nil, bad("$%d refers to group %d but the pattern has %s", g, g, groupCount(groups))
			}
			ref(g)
			i += 2
		case c == '<' || c == '{':
			closer := byte('>')
			if c == '{' {
				closer = '}'
			}
			end := strings.IndexByte(s[i+2:], closer)
			if end < 0 {
				return nil, bad("unterminated $%c at offset %d", c, i)
			}
			g, err := named(s[i+2 : i+2+end])
			if err != nil {
				return nil, err
			}
			ref(g)
			i += 2 + end + 1
		default:
			lit.WriteByte('$')
			i++
		}
	}
	flush()
	return pieces, nil
}

// groupCount says how many capture groups a pattern has.
func groupCount(n int) string {
	switch n {
	case 0:
		return "no capture groups"
	case 1:
		return "1 capture group"
	}
	return strconv.Itoa(n) + " capture groups"
}

// replaceAll replaces each match in locs with the expanded replacement.
func replaceAll(text string, locs [][]int, repl []replPiece) string {
	var sb strings.Builder
	last := 0
	for _, loc := range locs {
		sb.WriteString(text[last:loc[0]])
		for _, p := range repl {
			switch {
			case p.group == replLiteral:
				sb.WriteString(p.lit)
			case p.group == replBefore:
				sb.WriteString(text[:loc[0]])
			case p.group == replAfter:
				sb.WriteString(text[loc[1]:])
			case loc[2*p.group] >= 0:
				sb.WriteString(text[loc[2*p.group]:loc[2*p.group+1]])
			}
		}
		last = loc[1]
	}
	sb.WriteString(text[last:])
	return sb.String()
}
