package text

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"unicode"

	"github.com/barrhawk/barrhawk/internal/schema"
	"github.com/barrhawk/barrhawk/internal/tool"
)

// diffChange is one added or removed line of a string_diff result.
type diffChange struct {
	Type               string `json:"type"`
	Line               int    `json:"line"`
	LineNumberExpected int    `json:"lineNumberExpected,omitempty"`
	LineNumberActual   int    `json:"lineNumberActual,omitempty"`
	Text               string `json:"text"`
}

// lineEndings names the line-ending style of each input.
type lineEndings struct {
	Expected string `json:"expected"`
	Actual   string `json:"actual"`
}

// diffResult is what string_diff returns.
type diffResult struct {
	Equal       bool         `json:"equal"`
	Identical   bool         `json:"identical"`
	Added       int          `json:"added"`
	Removed     int          `json:"removed"`
	Unified     string       `json:"unified"`
	Changes     []diffChange `json:"changes"`
	LineEndings lineEndings  `json:"lineEndings"`
}

func stringDiff() tool.Tool {
	type args struct {
		Expected         string `json:"expected"`
		Actual           string `json:"actual"`
		Context          *int   `json:"context"`
		IgnoreWhitespace bool   `json:"ignoreWhitespace"`
		IgnoreCase       bool   `json:"ignoreCase"`
	}
	return tool.Tool{
		Def: tool.Def{
			Name: "string_diff",
			Description: "Compare two texts line by line with a minimal (Myers/LCS) diff. " +
				"Line endings (LF, CRLF, CR) are normalised and a missing final newline is ignored, so " +
				"`equal` means no line differs; `identical` says whether the inputs are byte-for-byte equal and " +
				"`lineEndings` names each side's style (lf, crlf, cr, mixed, none). " +
				"Returns {equal, identical, added, removed, unified, changes, lineEndings}: `unified` is a unified diff " +
				"(--- expected / +++ actual, @@ hunks with `context` unchanged lines around each change; empty when equal); " +
				"`changes` lists every changed line as {type: add|remove, line, lineNumberExpected (removes), " +
				"lineNumberActual (adds), text}, where `line` is the 1-based line number on the side the line belongs to.",
			Phrases:  []string{"text diff", "compare two strings", "diff -u", "line by line diff", "expected and actual text", "what changed between texts", "crlf differences", "line diff of expected vs actual output", "diff two pasted snippets"},
			Group:    Group,
			Category: tool.CategoryUtility,
			Input: schema.Object(
				schema.String("expected", "The expected text (the old side of the diff, lines prefixed with -)").Required(),
				schema.String("actual", "The actual text (the new side of the diff, lines prefixed with +)").Required(),
				schema.Integer("context", "Number of unchanged lines shown around each change in `unified`; hunks closer than twice this are merged").Min(0).Default(3),
				schema.Boolean("ignoreWhitespace", "Compare lines with leading and trailing whitespace removed and inner runs of whitespace collapsed to one space").Default(false),
				schema.Boolean("ignoreCase", "Compare lines case-insensitively (Unicode simple case folding)").Default(false),
			),
			RequiresWorker: true,
		},
		Run: tool.Typed(func(ctx context.Context, in args, _ *tool.Call) (any, error) {
			n := 3
			if in.Context != nil {
				n = *in.Context
			}
			if n < 0 {
				return nil, tool.Errorf(tool.CodeInvalidArgs, "argument \"context\": expected an integer >= 0, got %d", n)
			}
			return diffTexts(ctx, in.Expected, in.Actual, n, in.IgnoreWhitespace, in.IgnoreCase)
		}),
	}
}

// LineDiff is a line diff of two texts, as Diff returns it.
type LineDiff struct {
	// Equal is true when no line differs (line endings normalised).
	Equal bool
	// Added and Removed count changed lines.
	Added, Removed int
	// Unified is the unified diff, headed by the two names; empty when Equal.
	Unified string
}

// Diff compares two texts line by line (the minimal diff of string_diff)
// and returns a unified diff headed "--- oldName" / "+++ newName" with
// contextLines unchanged lines around each change. It returns ctx's error
// if ctx ends first.
func Diff(ctx context.Context, oldName, newName, oldText, newText string, contextLines int) (*LineDiff, error) {
	res, err := diffNamed(ctx, oldText, newText, contextLines, false, false, oldName, newName)
	if err != nil {
		return nil, err
	}
	return &LineDiff{Equal: res.Equal, Added: res.Added, Removed: res.Removed, Unified: res.Unified}, nil
}

// diffTexts computes the string_diff result.
func diffTexts(ctx context.Context, expected, actual string, contextLines int, ignoreWS, ignoreCase bool) (*diffResult, error) {
	return diffNamed(ctx, expected, actual, contextLines, ignoreWS, ignoreCase, "expected", "actual")
}

// diffNamed is diffTexts with the names of the unified diff's header.
func diffNamed(ctx context.Context, expected, actual string, contextLines int, ignoreWS, ignoreCase bool, aName, bName string) (*diffResult, error) {
	aLines, aEnd := splitLines(expected)
	bLines, bEnd := splitLines(actual)

	ids := map[string]int{}
	intern := func(lines []string) []int {
		out := make([]int, len(lines))
		for i, l := range lines {
			k := lineKey(l, ignoreWS, ignoreCase)
			id, ok := ids[k]
			if !ok {
				id = len(ids)
				ids[k] = id
			}
			out[i] = id
		}
		return out
	}
	a, b := intern(aLines), intern(bLines)

	removed, added, err := diffLines(ctx, a, b)
	if err != nil {
		return nil, err
	}
	ops := editScript(removed, added)

	res := &diffResult{
		Identical:   expected == actual,
		Changes:     []diffChange{},
		LineEndings: lineEndings{Expected: aEnd, Actual: bEnd},
	}
	for _, op := range ops {
		switch op.kind {
		case opDel:
			res.Removed++
			res.Changes = append(res.Changes, diffChange{Type: "remove", Line: op.a + 1, LineNumberExpected: op.a + 1, Text: aLines[op.a]})
		case opIns:
			res.Added++
			res.Changes = append(res.Changes, diffChange{Type: "add", Line: op.b + 1, LineNumberActual: op.b + 1, Text: bLines[op.b]})
		}
	}
	res.Equal = res.Added == 0 && res.Removed == 0
	if !res.Equal {
		contextLines = min(contextLines, len(ops)) // no overflow in 2*contextLines
		res.Unified = unified(ops, aLines, bLines, contextLines, aName, bName)
	}
	return res, nil
}

// splitLines splits s into lines on LF, CRLF and lone CR. A final line
// break does not start another line, so "a\n" and "a" are both ["a"] and ""
// is no lines at all. It also names the line-ending style of s.
func splitLines(s string) ([]string, string) {
	var lines []string
	var lf, crlf, cr int
	start := 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '\n':
			lines = append(lines, s[start:i])
			start = i + 1
			lf++
		case '\r':
			lines = append(lines, s[start:i])
			if i+1 < len(s) && s[i+1] == '\n' {
				i++
				crlf++
			} else {
				cr++
			}
			start = i + 1
		}
	}
	if start < len(s) {
		lines = append(lines, s[start:])
	}
	style := "none"
	switch {
	case lf > 0 && crlf == 0 && cr == 0:
		style = "lf"
	case crlf > 0 && lf == 0 && cr == 0:
		style = "crlf"
	case cr > 0 && lf == 0 && crlf == 0:
		style = "cr"
	case lf+crlf+cr > 0:
		style = "mixed"
	}
	return lines, style
}

// lineKey is what two lines are compared by under the ignore options.
func lineKey(line string, ignoreWS, ignoreCase bool) string {
	if ignoreWS {
		line = strings.Join(strings.Fields(line), " ")
	}
	if ignoreCase {
		line = strings.Map(foldRune, line)
	}
	return line
}

// foldRune maps r to the smallest rune of its simple case-folding orbit, so
// that two strings fold to the same key exactly when strings.EqualFold
// holds rune by rune.
func foldRune(r rune) rune {
	m := r
	for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
		m = min(m, f)
	}
	return m
}

// Edit operations of a script.
const (
	opEq = iota
	opDel
	opIns
)

// edit is one step of an edit script: a is the index of the expected line
// (opEq, opDel), b of the actual line (opEq, opIns).
type edit struct {
	kind int
	a, b int
}

// editScript turns the removed/added marks into a sequence of edits; within
// a change, removals come before additions.
func editScript(removed, added []bool) []edit {
	var ops []edit
	i, j := 0, 0
	for i < len(removed) || j < len(added) {
		switch {
		case i < len(removed) && removed[i]:
			ops = append(ops, edit{kind: opDel, a: i, b: j})
			i++
		case j < len(added) && added[j]:
			ops = append(ops, edit{kind: opIns, a: i, b: j})
			j++
		default:
			ops = append(ops, edit{kind: opEq, a: i, b: j})
			i++
			j++
		}
	}
	return ops
}

// unified formats an edit script as a unified diff with context lines of
// contextLines around each change, headed by the names of the two sides.
// Hunk headers follow GNU diff: a count of 1 is omitted, and an empty side
// gives the line before the hunk.
func unified(ops []edit, aLines, bLines []string, contextLines int, aName, bName string) string {
	var sb strings.Builder
	sb.WriteString("--- " + aName + "\n+++ " + bName + "\n")
	n := len(ops)
	for i := 0; i < n; {
		if ops[i].kind == opEq {
			i++
			continue
		}
		start := max(0, i-contextLines)
		// Extend the hunk over every change whose gap of equal lines to
		// the previous change is at most 2*contextLines.
		last := i
		for j := i + 1; j < n; j++ {
			if ops[j].kind == opEq {
				continue
			}
			if j-last-1 > 2*contextLines {
				break
			}
			last = j
		}
		end := min(n, last+1+contextLines)

		aStart, bStart := ops[start].a, ops[start].b
		var aCount, bCount int
		for _, op := range ops[start:end] {
			if op.kind != opIns {
				aCount++
			}
			if op.kind != opDel {
				bCount++
			}
		}
		fmt.Fprintf(&sb, "@@ -%s +%s @@\n", hunkRange(aStart, aCount), hunkRange(bStart, bCount))
		for _, op := range ops[start:end] {
			switch op.kind {
			case opEq:
				sb.WriteString(" " + aLines[op.a] + "\n")
			case opDel:
				sb.WriteString("-" + aLines[op.a] + "\n")
			case opIns:
				sb.WriteString("+" + bLines[op.b] + "\n")
			}
		}
		i = end
	}
	return sb.String()
}

// hunkRange formats one side of a hunk header; before is the number of
// lines of that side before the hunk.
func hunkRange(before, count int) string {
	switch count {
	case 0:
		return fmt.Sprintf("%d,0", before)
	case 1:
		return fmt.Sprintf("%d", before+1)
	}
	return fmt.Sprintf("%d,%d", before+1, count)
}

// diffLines computes a minimal line diff of a and b (line ids) and returns
// which lines of a are removed and which of b are added.
//
// Lines occurring on one side only cannot be part of any common
// subsequence, so they are marked first and Myers' algorithm runs on the
// rest; this keeps the result minimal and makes wholly different texts
// cheap.
func diffLines(ctx context.Context, a, b []int) (removed, added []bool, err error) {
	removed = make([]bool, len(a))
	added = make([]bool, len(b))
	inA := map[int]bool{}
	for _, id := range a {
		inA[id] = true
	}
	inB := map[int]bool{}
	for _, id := range b {
		inB[id] = true
	}
	var fa, fb, ia, ib []int // filtered lines and their original indices
	for i, id := range a {
		if inB[id] {
			fa = append(fa, id)
			ia = append(ia, i)
		} else {
			removed[i] = true
		}
	}
	for j, id := range b {
		if inA[id] {
			fb = append(fb, id)
			ib = append(ib, j)
		} else {
			added[j] = true
		}
	}
	d := &myers{ctx: ctx, a: fa, b: fb, removed: make([]bool, len(fa)), added: make([]bool, len(fb))}
	if err := d.compare(0, len(fa), 0, len(fb)); err != nil {
		return nil, nil, err
	}
	for k, r := range d.removed {
		if r {
			removed[ia[k]] = true
		}
	}
	for k, ad := range d.added {
		if ad {
			added[ib[k]] = true
		}
	}
	return removed, added, nil
}

// myers is the linear-space variant of Myers' O(ND) difference algorithm
// ("An O(ND) Difference Algorithm and Its Variations", 1986, section 4b):
// find the middle of a shortest edit path by searching forward from the
// start and backward from the end at once, then recurse on both halves.
type myers struct {
	ctx            context.Context
	a, b           []int
	removed, added []bool
}

// compare marks the edits turning a[aLo:aHi] into b[bLo:bHi].
func (d *myers) compare(aLo, aHi, bLo, bHi int) error {
	for aLo < aHi && bLo < bHi && d.a[aLo] == d.b[bLo] {
		aLo++
		bLo++
	}
	for aLo < aHi && bLo < bHi && d.a[aHi-1] == d.b[bHi-1] {
		aHi--
		bHi--
	}
	if aLo == aHi || bLo == bHi {
		for i := aLo; i < aHi; i++ {
			d.removed[i] = true
		}
		for j := bLo; j < bHi; j++ {
			d.added[j] = true
		}
		return nil
	}
	x, y, ok, err := d.bisect(aLo, aHi, bLo, bHi)
	if err != nil {
		return err
	}
	if !ok {
		for i := aLo; i < aHi; i++ {
			d.removed[i] = true
		}
		for j := bLo; j < bHi; j++ {
			d.added[j] = true
		}
		return nil
	}
	if err := d.compare(aLo, x, bLo, y); err != nil {
		return err
	}
	return d.compare(x, aHi, y, bHi)
}

// bisect finds a point (x, y) on a shortest edit path through
// a[aLo:aHi] × b[bLo:bHi] where the forward and backward searches meet.
// ok is false when the two ranges have nothing in common.
func (d *myers) bisect(aLo, aHi, bLo, bHi int) (x, y int, ok bool, err error) {
	a, b := d.a[aLo:aHi], d.b[bLo:bHi]
	n, m := len(a), len(b)
	maxD := (n + m + 1) / 2
	off := maxD
	vlen := 2*maxD + 2 // room for the v[off+1] seed when maxD is 1
	v1 := make([]int, vlen)
	v2 := make([]int, vlen)
	for i := range v1 {
		v1[i], v2[i] = -1, -1
	}
	v1[off+1], v2[off+1] = 0, 0
	delta := n - m
	front := delta%2 != 0 // the forward search detects the overlap
	var k1start, k1end, k2start, k2end int
	for D := 0; D < maxD; D++ {
		if D%64 == 0 {
			if err := ctxError(d.ctx); err != nil {
				return 0, 0, false, err
			}
		}
		// Forward path.
		for k1 := -D + k1start; k1 <= D-k1end; k1 += 2 {
			k1o := off + k1
			var x1 int
			if k1 == -D || (k1 != D && v1[k1o-1] < v1[k1o+1]) {
				x1 = v1[k1o+1]
			} else {
				x1 = v1[k1o-1] + 1
			}
			y1 := x1 - k1
			for x1 < n && y1 < m && a[x1] == b[y1] {
				x1++
				y1++
			}
			v1[k1o] = x1
			switch {
			case x1 > n:
				k1end += 2 // ran off the right edge
			case y1 > m:
				k1start += 2 // ran off the bottom
			case front:
				k2o := off + delta - k1
				if k2o >= 0 && k2o < vlen && v2[k2o] != -1 && x1 >= n-v2[k2o] {
					return aLo + x1, bLo + y1, true, nil
				}
			}
		}
		// Reverse path.
		for k2 := -D + k2start; k2 <= D-k2end; k2 += 2 {
			k2o := off + k2
			var x2 int
			if k2 == -D || (k2 != D && v2[k2o-1] < v2[k2o+1]) {
				x2 = v2[k2o+1]
			} else {
				x2 = v2[k2o-1] + 1
			}
			y2 := x2 - k2
			for x2 < n && y2 < m && a[n-x2-1] == b[m-y2-1] {
				x2++
				y2++
			}
			v2[k2o] = x2
			switch {
			case x2 > n:
				k2end += 2
			case y2 > m:
				k2start += 2
			case !front:
				k1o := off + delta - k2
				if k1o >= 0 && k1o < vlen && v1[k1o] != -1 {
					x1 := v1[k1o]
					y1 := off + x1 - k1o
					if x1 >= n-x2 {
						return aLo + x1, bLo + y1, true, nil
					}
				}
			}
		}
	}
	return 0, 0, false, nil
}

// ctxError converts a done context into the matching tool error.
func ctxError(ctx context.Context) error {
	err := ctx.Err()
	switch {
	case err == nil:
		return nil
	case errors.Is(err, context.DeadlineExceeded):
		return tool.Errorf(tool.CodeTimeout, "diff ran past the call's timeout; compare smaller texts")
	}
	return tool.Errorf(tool.CodeCancelled, "diff cancelled: %v", err)
}
