package text

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/barrhawk/barrhawk/internal/tool"
	"github.com/barrhawk/barrhawk/internal/tool/tooltest"
)

func TestRegexTestWorkedExample(t *testing.T) {
	t.Parallel()
	got := tooltest.MustRun(t, Tools(), "regex_test",
		`{"pattern":"(?<user>\\w+)@(\\w+)?","text":"héllo a@b c@ d@e","flags":"g","replace":"[$<user>|$2|$&]"}`)
	tooltest.WantJSON(t, "regex_test", got, `{
		"matched": true, "matchCount": 3, "truncated": false,
		"matches": [
			{"match": "a@b", "index": 6, "byteIndex": 7, "groups": ["a", "b"], "namedGroups": {"user": "a"}},
			{"match": "c@", "index": 10, "byteIndex": 11, "groups": ["c", null], "namedGroups": {"user": "c"}},
			{"match": "d@e", "index": 13, "byteIndex": 14, "groups": ["d", "e"], "namedGroups": {"user": "d"}}
		],
		"replaced": "héllo [a|b|a@b] [c||c@] [d|e|d@e]",
		"pattern": "(?<user>\\w+)@(\\w+)?"
	}`)
}

func TestRegexTestMatching(t *testing.T) {
	t.Parallel()
	type m struct {
		match string
		index int
	}
	for _, tc := range []struct {
		name, pattern, text, flags string
		want                       []m
	}{
		{"first match only without g", `\d+`, "a1 b22 c333", "", []m{{"1", 1}}},
		{"all matches with g", `\d+`, "a1 b22 c333", "g", []m{{"1", 1}, {"22", 4}, {"333", 8}}},
		{"no match", `\d+`, "abc", "g", nil},
		{"case-sensitive by default", `hello`, "HELLO", "", nil},
		{"i flag", `hello`, "Say HELLO", "i", []m{{"HELLO", 4}}},
		{"^ only at start without m", `^b`, "a\nb", "", nil},
		{"m flag", `^b`, "a\nb", "m", []m{{"b", 2}}},
		{"dot skips newline without s", `a.b`, "a\nb", "", nil},
		{"s flag", `a.b`, "a\nb", "s", []m{{"a\nb", 0}}},
		{"combined flags", `^x.y$`, "X\nY\nx\ny", "gims", []m{{"X\nY", 0}, {"x\ny", 4}}},
		{"empty text", `^$`, "", "", []m{{"", 0}}},
		{"empty pattern matches between characters", ``, "ab", "g", []m{{"", 0}, {"", 1}, {"", 2}}},
		{"unicode index counts characters", `wörld`, "héllo wörld 👋", "", []m{{"wörld", 6}}},
		{"index after an emoji", `x`, "👋x", "", []m{{"x", 1}}},
	} {
		args, _ := json.Marshal(map[string]string{"pattern": tc.pattern, "text": tc.text, "flags": tc.flags})
		got := tooltest.MustRunObject(t, Tools(), "regex_test", string(args))
		if got["matched"] != (len(tc.want) > 0) || got["matchCount"] != float64(len(tc.want)) {
			t.Errorf("%s: matched %v, matchCount %v; want %v, %d", tc.name, got["matched"], got["matchCount"], len(tc.want) > 0, len(tc.want))
			continue
		}
		matches := got["matches"].([]any)
		if len(matches) != len(tc.want) {
			t.Errorf("%s: %d matches, want %d", tc.name, len(matches), len(tc.want))
			continue
		}
		for i, w := range tc.want {
			gm := matches[i].(map[string]any)
			if gm["match"] != w.match || gm["index"] != float64(w.index) {
				t.Errorf("%s: match %d = %q at %v, want %q at %d", tc.name, i, gm["match"], gm["index"], w.match, w.index)
			}
		}
	}
}

func TestRegexTestTruncates(t *testing.T) {
	t.Parallel()
	args := fmt.Sprintf(`{"pattern":"a","text":%q,"flags":"g","replace":"b"}`, strings.Repeat("a", 1500))
	got := tooltest.MustRunObject(t, Tools(), "regex_test", args)
	if got["matchCount"] != 1500.0 || got["truncated"] != true || len(got["matches"].([]any)) != MaxRegexMatches {
		t.Errorf("matchCount %v, truncated %v, %d matches listed; want 1500, true, %d",
			got["matchCount"], got["truncated"], len(got["matches"].([]any)), MaxRegexMatches)
	}
	last := got["matches"].([]any)[MaxRegexMatches-1].(map[string]any)
	if last["index"] != float64(MaxRegexMatches-1) {
		t.Errorf("last listed match at %v, want %d", last["index"], MaxRegexMatches-1)
	}
	if got["replaced"] != strings.Repeat("b", 1500) {
		t.Errorf("replace stopped at the listing cap")
	}
}

func TestRegexTestReplace(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ pattern, text, flags, replace, want string }{
		{`-`, "a-b-c", "", "+", "a+b-c"},
		{`-`, "a-b-c", "g", "+", "a+b+c"},
		{`(\w)-(\w)`, "a-b", "", "$2-$1", "b-a"},
		{`(?P<k>\w+)=(?<v>\w+)`, "x=1 y=2", "g", "${v}:$<k>", "1:x 2:y"},
		{`(\d)`, "5", "", "$10", "50"},   // $10 with one group is $1 then "0", as in JavaScript
		{`(\d)`, "5", "", "${1}0", "50"}, // the unambiguous spelling
		{`b`, "abc", "", "[$`|$&|$']", "a[a|b|c]c"},
		{`b`, "abc", "", "$$&", "a$&c"},
		{`b`, "abc", "", "$x $", "a$x $c"},
		{`(a)|(b)`, "b", "", "[$1]", "[]"},
		{`x`, "abc", "g", "y", "abc"},
		{`é`, "café", "g", "e", "cafe"},
	} {
		args, _ := json.Marshal(map[string]string{"pattern": tc.pattern, "text": tc.text, "flags": tc.flags, "replace": tc.replace})
		got := tooltest.MustRunObject(t, Tools(), "regex_test", string(args))
		if got["replaced"] != tc.want {
			t.Errorf("replace %q in %q with %q = %v, want %q", tc.pattern, tc.text, tc.replace, got["replaced"], tc.want)
		}
	}
	// Without replace there is no replaced key.
	got := tooltest.MustRunObject(t, Tools(), "regex_test", `{"pattern":"a","text":"a"}`)
	if _, ok := got["replaced"]; ok {
		t.Errorf("replaced present without replace: %v", got)
	}
}

func TestRegexTestBadInput(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		args     string
		mentions []string
	}{
		{`{"text":"a"}`, []string{`"pattern"`}},
		{`{"pattern":"a"}`, []string{`"text"`}},
		{`{"pattern":"a","text":5}`, []string{`"text": expected string`}},
		{`{"pattern":"foo(?=bar)","text":"foobar"}`, []string{`"pattern"`, "lookahead", "RE2"}},
		{`{"pattern":"foo(?!bar)","text":"x"}`, []string{"negative lookahead", "RE2"}},
		{`{"pattern":"(?<=a)b","text":"ab"}`, []string{"lookbehind", "RE2"}},
		{`{"pattern":"(?<!a)b","text":"ab"}`, []string{"negative lookbehind", "RE2"}},
		{`{"pattern":"(a)\\1","text":"aa"}`, []string{`backreference \1`, "RE2"}},
		{`{"pattern":"(?<x>a)\\k<x>","text":"aa"}`, []string{"named backreference", "RE2"}},
		{`{"pattern":"(?>a)","text":"a"}`, []string{"atomic group", "RE2"}},
		{`{"pattern":"\\u0041","text":"A"}`, []string{`\x{XXXX}`}},
		{`{"pattern":"a*+","text":"a"}`, []string{"possessive"}},
		{`{"pattern":"(abc","text":"a"}`, []string{`"pattern"`, "RE2", "missing closing )"}},
		{`{"pattern":"a","text":"a","flags":"gx"}`, []string{`"flags"`, `'x'`, "i, m, s, g"}},
		{`{"pattern":"a","text":"a","flags":"y"}`, []string{`"flags"`}},
		{`{"pattern":"(a)","text":"a","replace":"$2"}`, []string{`"replace"`, "group 2", "has 1 capture group;"}},
		{`{"pattern":"(?<n>a)","text":"a","replace":"$<m>"}`, []string{`"replace"`, `"m"`}},
		{`{"pattern":"a","text":"a","replace":"${oops"}`, []string{`"replace"`, "unterminated"}},
		{`{"pattern":"b","text":"abc","replace":"cost: $5x"}`, []string{`"replace"`, "$5", "has no capture groups"}},
		{`{"pattern":"(a)(b)","text":"ab","replace":"${3}"}`, []string{`"replace"`, "${3}", "has 2 capture groups"}},
	} {
		tooltest.MustFailWith(t, Tools(), "regex_test", tc.args, tool.CodeInvalidArgs, tc.mentions...)
	}
}
