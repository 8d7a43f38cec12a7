package testreport

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// TAP (testanything.org, versions 13 and 14) is read line by line:
//
//   - a test point, "ok 3 - title" or "not ok 4 - title", with a directive
//     "# SKIP reason" (skipped) or "# TODO reason" (pending, whatever its
//     outcome, as TAP counts it);
//   - a YAML diagnostics block right after it, indented two spaces more,
//     between "---" and "...": message or error, stack, duration_ms, name
//     (the error's type), at or location (file:line:column);
//   - subtests, indented four spaces more than their parent test point,
//     which follows them (TAP 14 and Node's runner; a "# Subtest: name"
//     line may announce them). A parent counts through its subtests, and
//     itself only when it failed while none of them did; its title is the
//     subtests' suite.
//   - "Bail out!" ends the run: it is kept as a run error.
//
// Plans, pragmas, comments and lines of no TAP meaning are passed over,
// as the specification says; a YAML block that does not close or does not
// parse is an error at its line.

// maxYAMLBlock bounds one diagnostics block.
const maxYAMLBlock = 4 << 20

// tapLevel is what is known of the test points at one depth since their
// parent's last test point.
type tapLevel struct {
	count   int   // test points seen
	failed  bool  // one of them failed
	results []int // indexes of the results they (and their subtests) gave
	// announced is the title a "# Subtest: title" line gave the test
	// point to come at this depth.
	announced string
}

var (
	locationRe = regexp.MustCompile(`^(.*?):(\d+)(?::\d+)?$`)
	yamlLineRe = regexp.MustCompile(`line (\d+)`)
)

func parseTAP(p *parser, r io.Reader) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), maxYAMLBlock)
	var levels []tapLevel
	level := func(d int) *tapLevel {
		for len(levels) <= d {
			levels = append(levels, tapLevel{})
		}
		return &levels[d]
	}
	lineNo := 0
	last, lastDepth := -1, -1 // the last test point's result, and its depth
	yamlOK := false           // the previous line was a test point
	var yamlStart int
	var yamlBuf strings.Builder
	inYAML := false
	yamlIndent := ""
	for sc.Scan() {
		lineNo++
		raw := strings.TrimRight(sc.Text(), "\r")
		if inYAML {
			body, ok := strings.CutPrefix(raw, yamlIndent)
			if strings.TrimSpace(raw) == "..." && ok {
				inYAML = false
				if last >= 0 {
					if err := applyYAML(p, &p.rep.Results[last], yamlBuf.String(), yamlStart); err != nil {
						return err
					}
				}
				continue
			}
			if yamlBuf.Len()+len(body) > maxYAMLBlock {
				return p.fail(yamlStart, "the YAML block opened here is longer than %d bytes", maxYAMLBlock)
			}
			yamlBuf.WriteString(body)
			yamlBuf.WriteByte('\n')
			continue
		}
		indent, text := splitIndent(raw)
		depth := indent / 4
		if yamlOK && text == "---" && indent == lastDepth*4+2 {
			inYAML, yamlStart, yamlIndent = true, lineNo, strings.Repeat(" ", indent)
			yamlBuf.Reset()
			yamlOK = false
			continue
		}
		yamlOK = false
		switch {
		case strings.HasPrefix(text, "ok") || strings.HasPrefix(text, "not ok"):
			pt, ok := parseTestPoint(text)
			if !ok {
				continue // "okay, ..." and such: no TAP meaning
			}
			lv := level(depth)
			if lv.announced != "" && pt.title == "" {
				pt.title = lv.announced
			}
			lv.announced = ""
			if pt.title == "" {
				pt.title = "test " + strconv.Itoa(pt.number)
			}
			var kids tapLevel
			if len(levels) > depth+1 {
				kids = levels[depth+1]
				levels[depth+1] = tapLevel{}
			}
			// The subtests' results are this test's: its title is
			// their suite's first part.
			for _, i := range kids.results {
				r := &p.rep.Results[i]
				r.Suite = joinSuite(pt.title, r.Suite)
			}
			lv = level(depth)
			lv.count++
			lv.failed = lv.failed || pt.status == Failed
			lv.results = append(lv.results, kids.results...)
			last, lastDepth, yamlOK = -1, depth, true
			if kids.count > 0 && (pt.status != Failed || kids.failed) {
				continue // counted through its subtests
			}
			res := Result{Name: pt.title, Status: pt.status}
			if pt.status == Skipped || pt.status == Pending {
				res.Error = clean(pt.reason)
			}
			if err := p.add(res); err != nil {
				return err
			}
			last = len(p.rep.Results) - 1
			lv.results = append(lv.results, last)
		case strings.HasPrefix(text, "# Subtest"):
			name := strings.TrimSpace(strings.TrimPrefix(strings.TrimPrefix(text, "# Subtest"), ":"))
			lv := level(depth)
			lv.announced = name
		case strings.HasPrefix(text, "Bail out!"):
			reason := strings.TrimSpace(strings.TrimPrefix(text, "Bail out!"))
			p.rep.Errors = append(p.rep.Errors, clean(strings.TrimSpace("Bail out! "+reason)))
		}
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return p.fail(lineNo+1, "a line longer than %d bytes; expected TAP lines", maxYAMLBlock)
		}
		if isCtx(err) {
			return err
		}
		return fmt.Errorf("read %s: %w", p.rep.Name, err)
	}
	if inYAML {
		return p.fail(yamlStart, "the YAML block opened here by --- is not closed by ... (a truncated stream?)")
	}
	// Subtests whose parent never came (a stream cut short): the
	// announced names, where there were some, are their suites.
	for d := len(levels) - 1; d > 0; d-- {
		if parent := levels[d-1].announced; parent != "" {
			for _, i := range levels[d].results {
				r := &p.rep.Results[i]
				r.Suite = joinSuite(parent, r.Suite)
			}
		}
		levels[d-1].results = append(levels[d-1].results, levels[d].results...)
	}
	if lineNo == 0 {
		return p.fail(1, "the stream is empty; expected TAP lines")
	}
	return nil
}

// splitIndent returns the indentation of a line in spaces (a tab counts
// four) and the rest, trimmed.
func splitIndent(s string) (int, string) {
	n := 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case ' ':
			n++
		case '\t':
			n += 4
		default:
			return n, strings.TrimSpace(s[i:])
		}
	}
	return n, ""
}

// testPoint is a TAP "ok"/"not ok" line.
type testPoint struct {
	status Status
	number int
	title  string
	reason string
}

// parseTestPoint reads "not ok 12 - title # SKIP reason".
func parseTestPoint(text string) (testPoint, bool) {
	pt := testPoint{status: Passed}
	rest, notOK := strings.CutPrefix(text, "not ok")
	if notOK {
		pt.status = Failed
	} else {
		rest = strings.TrimPrefix(text, "ok")
	}
	if rest != "" && rest[0] != ' ' && rest[0] != '\t' {
		return pt, false
	}
	rest = strings.TrimLeft(rest, " \t")
	i := 0
	for i < len(rest) && rest[i] >= '0' && rest[i] <= '9' {
		i++
	}
	if i > 0 {
		pt.number, _ = strconv.Atoi(rest[:i])
		rest = rest[i:]
	}
	rest = strings.TrimLeft(rest, " \t")
	rest = strings.TrimPrefix(rest, "- ")
	if rest == "-" {
		rest = ""
	}
	desc, directive := splitDirective(rest)
	pt.title = unescapeTAP(strings.TrimSpace(desc))
	word, reason, _ := strings.Cut(strings.TrimSpace(directive), " ")
	switch w := strings.ToLower(word); {
	case strings.HasPrefix(w, "skip"):
		pt.status, pt.reason = Skipped, strings.TrimSpace(reason)
	case strings.HasPrefix(w, "todo"):
		pt.status, pt.reason = Pending, strings.TrimSpace(reason)
	}
	return pt, true
}

// splitDirective cuts a description at its first unescaped #.
func splitDirective(s string) (desc, directive string) {
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '\\':
			i++
		case '#':
			return s[:i], s[i+1:]
		}
	}
	return s, ""
}

// unescapeTAP undoes TAP's \# and \\.
func unescapeTAP(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	return strings.NewReplacer(`\#`, "#", `\\`, `\`).Replace(s)
}

// applyYAML reads a diagnostics block into the result it follows.
func applyYAML(p *parser, r *Result, block string, start int) error {
	var d map[string]any
	if err := yaml.Unmarshal([]byte(block), &d); err != nil {
		msg := err.Error()
		line := start
		if m := yamlLineRe.FindStringSubmatch(msg); m != nil {
			n, _ := strconv.Atoi(m[1])
			line = start + n
		}
		return p.fail(line, "the YAML diagnostics block opened at line %d does not parse: %s", start, strings.TrimPrefix(msg, "yaml: "))
	}
	str := func(keys ...string) string {
		for _, k := range keys {
			if v, ok := d[k]; ok && v != nil {
				if s, ok := v.(string); ok {
					return s
				}
				return fmt.Sprint(v)
			}
		}
		return ""
	}
	if v, ok := d["duration_ms"]; ok {
		if ms, ok := number(v); ok && ms >= 0 {
			r.DurationMs, r.HasDuration = ms, true
		}
	}
	if r.Status == Failed {
		if msg := str("message", "error"); msg != "" {
			r.Error = clean(strings.TrimRight(msg, "\n"))
		}
		r.Stack = clean(strings.TrimRight(str("stack"), "\n"))
		r.ErrorType = str("name", "type")
		if r.ErrorType == "suite" || r.ErrorType == "test" {
			r.ErrorType = "" // Node's kind of test point, not an error type
		}
		r.Kind = "failure"
	}
	loc := str("location")
	if at, ok := d["at"].(map[string]any); ok {
		if f, ok := at["file"].(string); ok {
			r.File = f
		}
		if l, ok := number(at["line"]); ok {
			r.Line = int(l)
		}
	} else if loc == "" {
		loc = str("at")
	}
	if m := locationRe.FindStringSubmatch(loc); m != nil {
		r.File = m[1]
		r.Line, _ = strconv.Atoi(m[2])
	} else if loc != "" {
		r.File = loc
	}
	return nil
}

// number reads a YAML or JSON number.
func number(v any) (float64, bool) {
	switch n := v.(type) {
	case int:
		return float64(n), true
	case int64:
		return float64(n), true
	case uint64:
		return float64(n), true
	case float64:
		return n, true
	}
	return 0, false
}
