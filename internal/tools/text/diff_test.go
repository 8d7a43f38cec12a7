package text

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	"github.com/barrhawk/barrhawk/internal/tool"
	"github.com/barrhawk/barrhawk/internal/tool/tooltest"
)

// numbered returns the lines "1".."n", with the replacements given, each
// followed by "\n".
func numbered(n int, replace map[int]string) string {
	var b strings.Builder
	for i := 1; i <= n; i++ {
		if r, ok := replace[i]; ok {
			b.WriteString(r + "\n")
		} else {
			b.WriteString(strconv.Itoa(i) + "\n")
		}
	}
	return b.String()
}

func diffArgs(expected, actual string, extra string) string {
	e, _ := json.Marshal(expected)
	a, _ := json.Marshal(actual)
	return fmt.Sprintf(`{"expected":%s,"actual":%s%s}`, e, a, extra)
}

func TestStringDiffWorkedExample(t *testing.T) {
	t.Parallel()
	got := tooltest.MustRun(t, Tools(), "string_diff", diffArgs("a\nb\nc\nd\ne\nf\ng\nh\ni\nj\n", "a\nB\nc\nd\ne\nf\ng\nh\ni\nj\nk\n", `,"context":1`))
	tooltest.WantJSON(t, "string_diff", got, `{
		"equal": false, "identical": false, "added": 2, "removed": 1,
		"unified": "--- expected\n+++ actual\n@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n@@ -10 +10,2 @@\n j\n+k\n",
		"changes": [
			{"type": "remove", "line": 2, "lineNumberExpected": 2, "text": "b"},
			{"type": "add", "line": 2, "lineNumberActual": 2, "text": "B"},
			{"type": "add", "line": 11, "lineNumberActual": 11, "text": "k"}
		],
		"lineEndings": {"expected": "lf", "actual": "lf"}
	}`)
}

func TestStringDiffUnified(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, expected, actual, extra, unified string
		added, removed                         int
	}{
		{
			name:     "default context gives separate hunks",
			expected: numbered(20, nil), actual: numbered(20, map[int]string{5: "five", 16: "sixteen"}),
			unified: "--- expected\n+++ actual\n" +
				"@@ -2,7 +2,7 @@\n 2\n 3\n 4\n-5\n+five\n 6\n 7\n 8\n" +
				"@@ -13,7 +13,7 @@\n 13\n 14\n 15\n-16\n+sixteen\n 17\n 18\n 19\n",
			added: 2, removed: 2,
		},
		{
			name:     "gap of exactly 2*context merges",
			expected: numbered(10, nil), actual: numbered(10, map[int]string{3: "x", 8: "y"}), extra: `,"context":2`,
			unified: "--- expected\n+++ actual\n@@ -1,10 +1,10 @@\n 1\n 2\n-3\n+x\n 4\n 5\n 6\n 7\n-8\n+y\n 9\n 10\n",
			added:   2, removed: 2,
		},
		{
			name:     "gap of 2*context+1 splits",
			expected: numbered(12, nil), actual: numbered(12, map[int]string{3: "x", 9: "y"}), extra: `,"context":2`,
			unified: "--- expected\n+++ actual\n@@ -1,5 +1,5 @@\n 1\n 2\n-3\n+x\n 4\n 5\n@@ -7,5 +7,5 @@\n 7\n 8\n-9\n+y\n 10\n 11\n",
			added:   2, removed: 2,
		},
		{
			name:     "context 0",
			expected: "a\nb\nc\n", actual: "a\nB\nc\n", extra: `,"context":0`,
			unified: "--- expected\n+++ actual\n@@ -2 +2 @@\n-b\n+B\n",
			added:   1, removed: 1,
		},
		{
			name:     "pure insertion with context 0 names the line before",
			expected: "a\nb\n", actual: "a\nnew\nb\n", extra: `,"context":0`,
			unified: "--- expected\n+++ actual\n@@ -1,0 +2 @@\n+new\n",
			added:   1,
		},
		{
			name:     "empty expected",
			expected: "", actual: "x",
			unified: "--- expected\n+++ actual\n@@ -0,0 +1 @@\n+x\n",
			added:   1,
		},
		{
			name:     "empty actual",
			expected: "x\ny\n", actual: "",
			unified: "--- expected\n+++ actual\n@@ -1,2 +0,0 @@\n-x\n-y\n",
			removed: 2,
		},
		{
			name:     "CRLF lines compare without the CR",
			expected: "a\r\nb\r\nc\r\n", actual: "a\r\nX\r\nc\r\n",
			unified: "--- expected\n+++ actual\n@@ -1,3 +1,3 @@\n a\n-b\n+X\n c\n",
			added:   1, removed: 1,
		},
		{
			name:     "unicode",
			expected: "日本\n語 ✓\nΩ\n", actual: "日本\n話 ✓\nΩ\n",
			unified: "--- expected\n+++ actual\n@@ -1,3 +1,3 @@\n 日本\n-語 ✓\n+話 ✓\n Ω\n",
			added:   1, removed: 1,
		},
		{
			name:     "moved line: minimal edit keeps the longest common run",
			expected: "a\nb\nc\nd\n", actual: "b\nc\nd\na\n",
			unified: "--- expected\n+++ actual\n@@ -1,4 +1,4 @@\n-a\n b\n c\n d\n+a\n",
			added:   1, removed: 1,
		},
		{
			name:     "ignoreWhitespace ignores only whitespace",
			expected: "  a   b\nc\n", actual: "a b \nC\n", extra: `,"ignoreWhitespace":true`,
			unified: "--- expected\n+++ actual\n@@ -1,2 +1,2 @@\n   a   b\n-c\n+C\n",
			added:   1, removed: 1,
		},
		{
			name:     "ignoreCase ignores only case",
			expected: "Hello\nworld\n", actual: "HELLO\nworld \n", extra: `,"ignoreCase":true`,
			unified: "--- expected\n+++ actual\n@@ -1,2 +1,2 @@\n Hello\n-world\n+world \n",
			added:   1, removed: 1,
		},
	} {
		got := tooltest.MustRun(t, Tools(), "string_diff", diffArgs(tc.expected, tc.actual, tc.extra))
		if u := tooltest.Object(t, got)["unified"]; u != tc.unified {
			t.Errorf("%s: unified =\n%s\nwant\n%s", tc.name, u, tc.unified)
		}
		if a, r := tooltest.Object(t, got)["added"], tooltest.Object(t, got)["removed"]; a != float64(tc.added) || r != float64(tc.removed) {
			t.Errorf("%s: added, removed = %v, %v; want %d, %d", tc.name, a, r, tc.added, tc.removed)
		}
		if eq := tooltest.Object(t, got)["equal"]; eq != false {
			t.Errorf("%s: equal = %v, want false", tc.name, eq)
		}
	}
}

func TestStringDiffEqual(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, expected, actual, extra string
		identical                     bool
		endings                       string
	}{
		{"same text", "a\nb\n", "a\nb\n", "", true, `{"expected":"lf","actual":"lf"}`},
		{"both empty", "", "", "", true, `{"expected":"none","actual":"none"}`},
		{"CRLF against LF", "one\r\ntwo\r\n", "one\ntwo\n", "", false, `{"expected":"crlf","actual":"lf"}`},
		{"CR against mixed", "one\rtwo", "one\r\ntwo\n", "", false, `{"expected":"cr","actual":"mixed"}`},
		{"missing final newline", "a\nb\n", "a\nb", "", false, `{"expected":"lf","actual":"lf"}`},
		{"ignoreWhitespace", "a  b\n\tc", "a b\nc  ", `,"ignoreWhitespace":true`, false, `{"expected":"lf","actual":"lf"}`},
		{"ignoreCase ASCII", "Hello\nWORLD", "hello\nworld", `,"ignoreCase":true`, false, `{"expected":"lf","actual":"lf"}`},
		{"ignoreCase unicode", "ÄRGER\nΣΑΣ", "ärger\nσας", `,"ignoreCase":true`, false, `{"expected":"lf","actual":"lf"}`},
	} {
		got := tooltest.MustRun(t, Tools(), "string_diff", diffArgs(tc.expected, tc.actual, tc.extra))
		want := fmt.Sprintf(`{"equal":true,"identical":%t,"added":0,"removed":0,"unified":"","changes":[],"lineEndings":%s}`, tc.identical, tc.endings)
		tooltest.WantJSON(t, tc.name, got, want)
	}
	// Without the ignore options the same inputs differ.
	for _, args := range []string{
		diffArgs("a  b\n\tc", "a b\nc  ", ""),
		diffArgs("Hello\nWORLD", "hello\nworld", ""),
	} {
		if got := tooltest.MustRun(t, Tools(), "string_diff", args); tooltest.Object(t, got)["equal"] != false {
			t.Errorf("string_diff(%s): equal = true without ignore options", args)
		}
	}
}

func TestStringDiffBadInput(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ args, mention string }{
		{`{"actual":"a"}`, `"expected"`},
		{`{"expected":"a"}`, `"actual"`},
		{`{"expected":1,"actual":"a"}`, `"expected": expected string`},
		{`{"expected":"a","actual":"b","context":-1}`, `"context"`},
		{`{"expected":"a","actual":"b","context":"3"}`, `"context": expected integer`},
		{`{"expected":"a","actual":"b","ignoreCase":"yes"}`, `"ignoreCase": expected boolean`},
	} {
		tooltest.MustFailWith(t, Tools(), "string_diff", tc.args, tool.CodeInvalidArgs, tc.mention)
	}
}

func TestStringDiffCancelled(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	// Lines shared by both sides in another order need the Myers search,
	// which notices the cancellation.
	_, err := tooltest.RunContext(t, ctx, Tools(), "string_diff", diffArgs("a\nb\nc\n", "c\nb\na\n", ""))
	if err == nil || err.Code != tool.CodeCancelled {
		t.Fatalf("string_diff with a cancelled context: got %v, want %s", err, tool.CodeCancelled)
	}
}

// lcsLen is the textbook dynamic-programming LCS length.
func lcsLen(a, b []int) int {
	dp := make([][]int, len(a)+1)
	for i := range dp {
		dp[i] = make([]int, len(b)+1)
	}
	for i := len(a) - 1; i >= 0; i-- {
		for j := len(b) - 1; j >= 0; j-- {
			if a[i] == b[j] {
				dp[i][j] = dp[i+1][j+1] + 1
			} else {
				dp[i][j] = max(dp[i+1][j], dp[i][j+1])
			}
		}
	}
	return dp[0][0]
}

// TestDiffLinesMinimal checks on random inputs that the edit script turns
// a into b and is as short as the LCS allows.
func TestDiffLinesMinimal(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(1, 2))
	for iter := range 2000 {
		alphabet := 1 + rng.IntN(6)
		a := make([]int, rng.IntN(25))
		b := make([]int, rng.IntN(25))
		for i := range a {
			a[i] = rng.IntN(alphabet)
		}
		for i := range b {
			b[i] = rng.IntN(alphabet)
		}
		removed, added, err := diffLines(context.Background(), a, b)
		if err != nil {
			t.Fatal(err)
		}
		var rebuilt []int
		edits := 0
		for _, op := range editScript(removed, added) {
			switch op.kind {
			case opEq:
				if a[op.a] != b[op.b] {
					t.Fatalf("iter %d: a=%v b=%v: kept a[%d]=%d against b[%d]=%d", iter, a, b, op.a, a[op.a], op.b, b[op.b])
				}
				rebuilt = append(rebuilt, a[op.a])
			case opIns:
				rebuilt = append(rebuilt, b[op.b])
				edits++
			case opDel:
				edits++
			}
		}
		if fmt.Sprint(rebuilt) != fmt.Sprint(b) && !(len(rebuilt) == 0 && len(b) == 0) {
			t.Fatalf("iter %d: a=%v b=%v: script builds %v", iter, a, b, rebuilt)
		}
		if want := len(a) + len(b) - 2*lcsLen(a, b); edits != want {
			t.Fatalf("iter %d: a=%v b=%v: %d edits, minimal is %d", iter, a, b, edits, want)
		}
	}
}

func TestStringDiffLarge(t *testing.T) {
	t.Parallel()
	// 5000 lines with every 100th changed, and a wholly different text:
	// both must finish quickly and count exactly.
	changes := map[int]string{}
	for i := 100; i <= 5000; i += 100 {
		changes[i] = "changed " + strconv.Itoa(i)
	}
	got := tooltest.MustRun(t, Tools(), "string_diff", diffArgs(numbered(5000, nil), numbered(5000, changes), ""))
	if a, r := tooltest.Object(t, got)["added"], tooltest.Object(t, got)["removed"]; a != 50.0 || r != 50.0 {
		t.Errorf("added, removed = %v, %v; want 50, 50", a, r)
	}
	// Many repeated lines, actual a subsequence of expected: the minimal
	// diff only removes.
	var exp, act strings.Builder
	deleted := 0
	for i := range 3000 {
		line := strconv.Itoa(i%10) + "\n"
		exp.WriteString(line)
		if i%7 == 3 {
			deleted++
		} else {
			act.WriteString(line)
		}
	}
	got = tooltest.MustRun(t, Tools(), "string_diff", diffArgs(exp.String(), act.String(), ""))
	if a, r := tooltest.Object(t, got)["added"], tooltest.Object(t, got)["removed"]; a != 0.0 || r != float64(deleted) {
		t.Errorf("subsequence: added, removed = %v, %v; want 0, %d", a, r, deleted)
	}
	other := strings.ReplaceAll(numbered(5000, nil), "\n", "x\n")
	got = tooltest.MustRun(t, Tools(), "string_diff", diffArgs(numbered(5000, nil), other, ""))
	if a, r := tooltest.Object(t, got)["added"], tooltest.Object(t, got)["removed"]; a != 5000.0 || r != 5000.0 {
		t.Errorf("wholly different: added, removed = %v, %v; want 5000, 5000", a, r)
	}
}
