package testreport

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
)

// ParseError is a report that does not read as its format: the file, the
// line (1-based; 0 when unknown) and what was expected.
type ParseError struct {
	File   string
	Format Format
	Line   int
	Msg    string
	// offset is the byte offset of the fault, for the JSON formats, whose
	// decoder counts bytes, not lines; Parse turns it into Line.
	offset int64
}

func (e *ParseError) Error() string {
	where := e.File
	if e.Line > 0 {
		where += fmt.Sprintf(":%d", e.Line)
	}
	if e.Format == "" {
		return where + ": " + e.Msg
	}
	return fmt.Sprintf("%s: %s: %s", where, e.Format, e.Msg)
}

// LimitError is a report over one of the bounds (MaxFileBytes,
// MaxResults); Msg names the bound.
type LimitError struct {
	File string
	Msg  string
}

func (e *LimitError) Error() string { return e.File + ": " + e.Msg }

// headBytes is how much of a report Detect looks at.
const headBytes = 64 << 10

// Parse reads one report from r, called name in errors, in format, or in
// the format Detect finds in its first bytes when format is empty. It
// stops when ctx ends, and with a *LimitError past MaxResults results.
func Parse(ctx context.Context, r io.Reader, name string, format Format) (*Report, error) {
	budget := MaxResults
	return parse(ctx, r, name, format, &budget)
}

// parser is the state shared by the format readers: the report being
// filled and the results left in the call's budget.
type parser struct {
	rep    *Report
	budget *int
	names  interner
}

// add appends a result, or fails once the budget is spent.
func (p *parser) add(r Result) error {
	if *p.budget <= 0 {
		return &LimitError{File: p.rep.Name, Msg: fmt.Sprintf("more than %d test results, the most one call reads (MaxResults); give fewer files", MaxResults)}
	}
	*p.budget--
	r.Suite = p.names.get(r.Suite)
	r.File = p.names.get(r.File)
	p.rep.Results = append(p.rep.Results, r)
	return nil
}

// fail is a ParseError at line of the report.
func (p *parser) fail(line int, format string, a ...any) error {
	return &ParseError{File: p.rep.Name, Format: p.rep.Format, Line: line, Msg: fmt.Sprintf(format, a...)}
}

func parse(ctx context.Context, r io.Reader, name string, format Format, budget *int) (*Report, error) {
	br := bufio.NewReaderSize(ctxReader{ctx, r}, headBytes)
	if format == "" {
		head, err := br.Peek(headBytes)
		if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, bufio.ErrBufferFull) {
			return nil, fmt.Errorf("read %s: %w", name, err)
		}
		if format, err = Detect(head); err != nil {
			var pe *ParseError
			if errors.As(err, &pe) {
				pe.File = name
			}
			return nil, err
		}
	}
	p := &parser{rep: &Report{Name: name, Format: format, Results: []Result{}}, budget: budget, names: interner{}}
	var err error
	switch format {
	case JUnit:
		err = parseJUnit(p, br)
	case TAP:
		err = parseTAP(p, br)
	case GoTest:
		err = parseGoTest(p, br)
	case Playwright:
		err = parsePlaywright(p, br)
	case Jest:
		err = parseJest(p, br)
	default:
		return nil, &ParseError{File: name, Msg: fmt.Sprintf("unknown format %q; expected one of %s", format, formatList())}
	}
	if cerr := ctx.Err(); cerr != nil {
		return nil, cerr
	}
	var pe *ParseError
	if errors.As(err, &pe) && pe.Line == 0 && pe.offset > 0 {
		pe.Line = lineAt(r, pe.offset)
	}
	if err != nil {
		return nil, err
	}
	return p.rep, nil
}

// lineAt is the line holding byte offset off of r, read again from its
// start; 0 when r cannot seek.
func lineAt(r io.Reader, off int64) int {
	s, ok := r.(io.ReadSeeker)
	if !ok {
		return 0
	}
	if _, err := s.Seek(0, io.SeekStart); err != nil {
		return 0
	}
	line := 1
	buf := make([]byte, 32<<10)
	for off > 0 {
		n, err := s.Read(buf[:min(int64(len(buf)), off)])
		line += bytes.Count(buf[:n], []byte{'\n'})
		off -= int64(n)
		if err != nil {
			break
		}
	}
	return line
}

// ctxReader stops a long read when ctx ends.
type ctxReader struct {
	ctx context.Context
	r   io.Reader
}

func (c ctxReader) Read(b []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.r.Read(b)
}

func formatList() string {
	s := make([]string, len(Formats))
	for i, f := range Formats {
		s[i] = string(f)
	}
	return strings.Join(s, ", ")
}

// Detect tells the format of a report from its first bytes (64 KiB are
// plenty): < with a <testsuites> or <testsuite> element is JUnit; a first
// JSON line with an "Action" key is go test -json; a JSON object with
// "numTotalTests" or "testResults" is Jest's, one with "suites" (and
// "config" or "stats") Playwright's; a line such as TAP version 13,
// 1..4, ok 1 or not ok 2 is TAP. Anything else is a *ParseError saying
// what was expected.
func Detect(head []byte) (Format, error) {
	head = bytes.TrimPrefix(head, []byte("\xef\xbb\xbf"))
	trimmed := bytes.TrimLeft(head, " \t\r\n")
	if len(trimmed) == 0 {
		return "", &ParseError{Line: 1, Msg: "the report is empty; expected " + expectedFormats}
	}
	switch trimmed[0] {
	case '<':
		if bytes.Contains(trimmed, []byte("<testsuites")) || bytes.Contains(trimmed, []byte("<testsuite")) {
			return JUnit, nil
		}
		return "", &ParseError{Line: 1, Msg: "an XML document without <testsuites> or <testsuite> in its first 64 KiB, so not JUnit; expected " + expectedFormats}
	case '{':
		first, _, _ := bytes.Cut(trimmed, []byte("\n"))
		switch {
		case bytes.Contains(first, []byte(`"Action"`)):
			return GoTest, nil
		case bytes.Contains(trimmed, []byte(`"numTotalTests"`)) || bytes.Contains(trimmed, []byte(`"testResults"`)):
			return Jest, nil
		case bytes.Contains(trimmed, []byte(`"suites"`)) && (bytes.Contains(trimmed, []byte(`"config"`)) || bytes.Contains(trimmed, []byte(`"stats"`))):
			return Playwright, nil
		}
		return "", &ParseError{Line: 1, Msg: "a JSON document that is neither go test -json (\"Action\"), Jest's (\"numTotalTests\", \"testResults\") nor Playwright's (\"config\", \"suites\", \"stats\"); expected " + expectedFormats}
	}
	n := 0
	for line := range bytes.Lines(trimmed) {
		if n++; n > 200 {
			break
		}
		l := bytes.TrimSpace(line)
		switch {
		case isTAPLine(l):
			return TAP, nil
		case bytes.HasPrefix(l, []byte(`{"Time"`)) || bytes.HasPrefix(l, []byte(`{"Action"`)):
			return GoTest, nil
		}
	}
	return "", &ParseError{Line: 1, Msg: fmt.Sprintf("cannot tell the format from the first bytes %q; expected %s", snippet(trimmed), expectedFormats)}
}

const expectedFormats = "JUnit XML (<testsuites> or <testsuite>), TAP (TAP version 13, ok 1 - ..., not ok 2 - ...), " +
	"go test -json lines ({\"Action\":...}), a Playwright JSON report ({\"config\":..., \"suites\":...}) or Jest --json output ({\"numTotalTests\":...}); " +
	"or name the format (the tools' sourceFormat, record import's --format)"

// isTAPLine reports whether a trimmed line can only be TAP.
func isTAPLine(l []byte) bool {
	switch {
	case bytes.HasPrefix(l, []byte("TAP version ")), bytes.HasPrefix(l, []byte("Bail out!")), bytes.HasPrefix(l, []byte("# Subtest")):
		return true
	case bytes.HasPrefix(l, []byte("1..")):
		return len(l) > 3 && l[3] >= '0' && l[3] <= '9'
	}
	rest, _ := bytes.CutPrefix(l, []byte("not "))
	rest, ok := bytes.CutPrefix(rest, []byte("ok"))
	if !ok {
		return false
	}
	// ok, ok 1, ok 1 - title, ok - title
	return len(rest) == 0 || len(rest) > 1 && rest[0] == ' ' && (rest[1] >= '0' && rest[1] <= '9' || rest[1] == '-')
}

// snippet is the start of a report for a message.
func snippet(b []byte) string {
	s := string(b)
	if line, _, ok := strings.Cut(s, "\n"); ok {
		s = line
	}
	if len(s) > 60 {
		s = s[:60] + "…"
	}
	return s
}
