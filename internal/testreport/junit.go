package testreport

import (
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// JUnit XML has no one standard; this reads what the common writers
// write:
//
//   - <testsuites> (optional) holding <testsuite> elements, which may nest
//     (Node's test runner nests its describe blocks), holding <testcase>
//     elements (name, classname, time in seconds, file, line).
//   - In a testcase: <failure> (failed), <error> (failed, Kind "error"),
//     <skipped> (skipped; type="todo" is Node's todo, pending), each with
//     a message and type attribute and the details as text;
//     <system-out> and <system-err> (Output; [[ATTACHMENT|path]] lines
//     are attachments, as Jenkins and Playwright's junit reporter write
//     them); <properties> whose attachment properties are attachments.
//   - Maven Surefire's reruns: <flakyFailure>/<flakyError> (the test
//     failed, then passed on a rerun: passed, flaky) and
//     <rerunFailure>/<rerunError> (every rerun failed too), each with
//     <stackTrace>, <system-out> and <system-err> inside.
//
// A test's suite is its classname; Node's test runner writes the
// placeholder classname "test" for every test, so there, and where the
// classname is empty, it is the enclosing testsuites' names.

// nodePlaceholderClass is the classname Node's junit reporter gives every
// test.
const nodePlaceholderClass = "test"

var attachmentRe = regexp.MustCompile(`\[\[ATTACHMENT\|([^\]\r\n]+)\]\]`)

// junitCase is a testcase being read.
type junitCase struct {
	res      Result
	failures []junitFailure // <failure>/<error>
	reruns   []junitFailure // <rerunFailure>/<rerunError>
	flaky    []junitFailure // <flakyFailure>/<flakyError>
	output   strings.Builder
	skipped  bool
	todo     bool
	skipMsg  string
}

// junitFailure is a <failure>, <error> or rerun element.
type junitFailure struct {
	kind, message, typ, text string
}

func parseJUnit(p *parser, r io.Reader) error {
	d := xml.NewDecoder(r)
	d.CharsetReader = charsetReader
	line := func() int { l, _ := d.InputPos(); return l }
	var suites []junitSuite
	var tc *junitCase
	root := false
	for {
		tok, err := d.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return xmlFail(p, d, err)
		}
		switch t := tok.(type) {
		case xml.StartElement:
			if !root {
				if t.Name.Local != "testsuites" && t.Name.Local != "testsuite" {
					return p.fail(line(), "the root element is <%s>; expected <testsuites> or <testsuite>", t.Name.Local)
				}
				root = true
			}
			if tc != nil {
				if err := readCaseChild(p, d, tc, t); err != nil {
					return err
				}
				continue
			}
			switch t.Name.Local {
			case "testsuites":
			case "testsuite":
				s := junitSuite{name: attr(t, "name"), file: attr(t, "file")}
				if ts := attr(t, "timestamp"); ts != "" && p.rep.Started.IsZero() {
					p.rep.Started = parseStamp(ts)
				}
				suites = append(suites, s)
			case "testcase":
				c, err := startCase(p, t, suites, line())
				if err != nil {
					return err
				}
				tc = c
			default:
				// <properties>, <system-out> of a suite and the like.
				if err := d.Skip(); err != nil {
					return xmlFail(p, d, err)
				}
			}
		case xml.EndElement:
			switch {
			case t.Name.Local == "testcase" && tc != nil:
				if err := p.add(finishCase(tc)); err != nil {
					return err
				}
				tc = nil
			case t.Name.Local == "testsuite" && len(suites) > 0:
				suites = suites[:len(suites)-1]
			}
		}
	}
	if !root {
		return p.fail(line(), "no <testsuites> or <testsuite> element; expected a JUnit XML report")
	}
	return nil
}

// junitSuite is an open <testsuite>.
type junitSuite struct{ name, file string }

// startCase reads a <testcase>'s attributes.
func startCase(p *parser, t xml.StartElement, suites []junitSuite, line int) (*junitCase, error) {
	c := &junitCase{}
	c.res.Name = attr(t, "name")
	if c.res.Name == "" {
		return nil, p.fail(line, "a <testcase> without a name attribute; expected <testcase name=\"...\">")
	}
	class := attr(t, "classname")
	if class == "" || class == nodePlaceholderClass {
		names := make([]string, 0, len(suites))
		for _, s := range suites {
			if s.name != "" {
				names = append(names, s.name)
			}
		}
		class = strings.Join(names, " > ")
	}
	c.res.Suite = class
	c.res.File = attr(t, "file")
	for i := len(suites) - 1; c.res.File == "" && i >= 0; i-- {
		c.res.File = suites[i].file
	}
	if l := attr(t, "line"); l != "" {
		n, err := strconv.Atoi(l)
		if err != nil || n < 0 {
			return nil, p.fail(line, "testcase %q: line=%q; expected a line number", c.res.Name, l)
		}
		c.res.Line = n
	}
	if tm := attr(t, "time"); tm != "" {
		secs, err := strconv.ParseFloat(strings.ReplaceAll(tm, ",", ""), 64)
		if err != nil || secs < 0 {
			return nil, p.fail(line, "testcase %q: time=%q; expected a number of seconds", c.res.Name, tm)
		}
		c.res.DurationMs, c.res.HasDuration = secs*1000, true
	}
	return c, nil
}

// readCaseChild reads one element inside a <testcase>.
func readCaseChild(p *parser, d *xml.Decoder, c *junitCase, t xml.StartElement) error {
	switch t.Name.Local {
	case "failure", "error":
		text, err := readText(p, d)
		if err != nil {
			return err
		}
		c.failures = append(c.failures, junitFailure{kind: kindOf(t.Name.Local), message: attr(t, "message"), typ: attr(t, "type"), text: text})
	case "rerunFailure", "rerunError", "flakyFailure", "flakyError":
		f, err := readRerun(p, d, c, t)
		if err != nil {
			return err
		}
		if strings.HasPrefix(t.Name.Local, "flaky") {
			c.flaky = append(c.flaky, f)
		} else {
			c.reruns = append(c.reruns, f)
		}
	case "skipped":
		text, err := readText(p, d)
		if err != nil {
			return err
		}
		c.skipped = true
		c.todo = c.todo || attr(t, "type") == "todo"
		c.skipMsg = attr(t, "message")
		if c.skipMsg == "" || c.skipMsg == "true" {
			c.skipMsg = strings.TrimSpace(text)
		}
	case "system-out", "system-err":
		text, err := readText(p, d)
		if err != nil {
			return err
		}
		addOutput(c, text)
	case "properties":
		// <property name="attachment" value="path"/>, or a value holding
		// [[ATTACHMENT|path]]; other properties are the writer's own.
		return nil // its <property> children come through here one by one
	case "property":
		name, value := attr(t, "name"), attr(t, "value")
		switch {
		case strings.Contains(value, "[[ATTACHMENT|"):
			addAttachments(c, value)
		case strings.HasPrefix(strings.ToLower(name), "attachment"):
			c.res.Attachments = append(c.res.Attachments, Attachment{Name: name, Path: value})
		}
		return d.Skip()
	default:
		return d.Skip()
	}
	return nil
}

func kindOf(element string) string {
	if strings.HasSuffix(strings.ToLower(element), "error") {
		return "error"
	}
	return "failure"
}

// readRerun reads a Surefire rerun or flaky element: its text is in a
// <stackTrace> child (or directly inside), its output in system-out and
// system-err children.
func readRerun(p *parser, d *xml.Decoder, c *junitCase, t xml.StartElement) (junitFailure, error) {
	f := junitFailure{kind: kindOf(t.Name.Local), message: attr(t, "message"), typ: attr(t, "type")}
	var direct strings.Builder
	for {
		tok, err := d.Token()
		if err != nil {
			return f, xmlFail(p, d, err)
		}
		switch x := tok.(type) {
		case xml.StartElement:
			text, err := readText(p, d)
			if err != nil {
				return f, err
			}
			switch x.Name.Local {
			case "stackTrace":
				f.text = text
			case "system-out", "system-err":
				addOutput(c, text)
			}
		case xml.CharData:
			if direct.Len() < 2*MaxTextBytes {
				direct.Write(x)
			}
		case xml.EndElement:
			if f.text == "" {
				f.text = strings.TrimSpace(direct.String())
			}
			return f, nil
		}
	}
}

// readText reads the text up to the end of the element just started,
// nested elements' text included, keeping at most twice MaxTextBytes.
func readText(p *parser, d *xml.Decoder) (string, error) {
	var b strings.Builder
	depth := 1
	for depth > 0 {
		tok, err := d.Token()
		if err != nil {
			return "", xmlFail(p, d, err)
		}
		switch x := tok.(type) {
		case xml.StartElement:
			depth++
		case xml.EndElement:
			depth--
		case xml.CharData:
			if room := 2*MaxTextBytes - b.Len(); room > 0 {
				b.Write(x[:min(len(x), room)])
			}
		}
	}
	s := b.String()
	if !utf8.ValidString(s) {
		s = strings.ToValidUTF8(s, "\uFFFD")
	}
	return s, nil
}

// addOutput keeps the start of a test's output (a failed test's is kept)
// and its attachment lines.
func addOutput(c *junitCase, text string) {
	addAttachments(c, text)
	if room := MaxOutputBytes + 1 - c.output.Len(); room > 0 && strings.TrimSpace(text) != "" {
		if c.output.Len() > 0 {
			c.output.WriteString("\n")
		}
		c.output.WriteString(text[:min(len(text), room)])
	}
}

func addAttachments(c *junitCase, text string) {
	if !strings.Contains(text, "[[ATTACHMENT|") {
		return
	}
	for _, m := range attachmentRe.FindAllStringSubmatch(text, -1) {
		path := strings.TrimSpace(m[1])
		c.res.Attachments = append(c.res.Attachments, Attachment{Name: baseName(path), Path: path})
	}
}

func baseName(p string) string {
	if i := strings.LastIndexAny(p, `/\`); i >= 0 {
		return p[i+1:]
	}
	return p
}

// finishCase settles a testcase's status, error and retries.
func finishCase(c *junitCase) Result {
	r := c.res

	attempt := func(f junitFailure) Attempt {
		msg, stack := failureText(f)
		return Attempt{Status: Failed, Error: msg, Stack: stack}
	}
	final := func(f junitFailure) {
		r.Status = Failed
		r.Error, r.Stack = failureText(f)
		r.ErrorType, r.Kind = f.typ, f.kind
	}
	switch {
	case len(c.failures) > 0:
		// The first run failed; each rerun failed again: the last is the
		// final attempt.
		all := append(append([]junitFailure{}, c.failures[:1]...), c.reruns...)
		for _, f := range all[:len(all)-1] {
			r.Attempts = append(r.Attempts, attempt(f))
		}
		final(all[len(all)-1])
		r.Retries = len(c.reruns)
		if len(c.failures) > 1 && r.Stack == "" {
			// a <failure> and an <error> (a test that failed, then broke
			// in its teardown): both are told.
			r.Stack = strings.TrimSpace(c.failures[1].message + "\n" + c.failures[1].text)
		}
	case len(c.reruns) > 0:
		// Reruns without the first failure: written so by some tools.
		for _, f := range c.reruns[:len(c.reruns)-1] {
			r.Attempts = append(r.Attempts, attempt(f))
		}
		final(c.reruns[len(c.reruns)-1])
		r.Retries = len(c.reruns) - 1
	case c.skipped:
		r.Status = Skipped
		if c.todo {
			r.Status = Pending
		}
		r.Error = clean(c.skipMsg)
	default:
		r.Status = Passed
		for _, f := range c.flaky {
			r.Attempts = append(r.Attempts, attempt(f))
		}
		r.Retries = len(c.flaky)
		r.Flaky = len(c.flaky) > 0
	}
	r.Output = output(r.Status, c.output.String())
	return r
}

// failureText is a failure's message and stack: the message attribute
// and the text, or the text split where its stack begins.
func failureText(f junitFailure) (msg, stack string) {
	text := strings.TrimSpace(f.text)
	if f.message != "" {
		return clean(f.message), clean(text)
	}
	msg, stack = splitStack(text)
	if msg == "" {
		msg = f.typ
	}
	return clean(msg), clean(stack)
}

func attr(t xml.StartElement, name string) string {
	for _, a := range t.Attr {
		if a.Name.Local == name {
			return a.Value
		}
	}
	return ""
}

// xmlFail turns a decoder error into a ParseError at its line.
func xmlFail(p *parser, d *xml.Decoder, err error) error {
	var le *LimitError
	if errors.As(err, &le) {
		return err
	}
	var se *xml.SyntaxError
	if errors.As(err, &se) {
		msg := se.Msg
		if msg == "unexpected EOF" {
			msg = "the XML ends inside an element (a truncated file?); expected its closing tags"
		}
		return p.fail(se.Line, "%s", msg)
	}
	if errors.Is(err, io.ErrUnexpectedEOF) {
		l, _ := d.InputPos()
		return p.fail(l, "the XML ends inside an element (a truncated file?); expected its closing tags")
	}
	var pe *ParseError
	if errors.As(err, &pe) {
		return err
	}
	l, _ := d.InputPos()
	if isCtx(err) {
		return err
	}
	return p.fail(l, "%v", err)
}

// charsetReader reads the encodings JUnit writers declare besides UTF-8:
// ISO-8859-1 (Latin-1) and US-ASCII.
func charsetReader(label string, in io.Reader) (io.Reader, error) {
	switch strings.ToLower(label) {
	case "iso-8859-1", "latin1", "latin-1", "iso8859-1", "us-ascii", "ascii":
		return &latin1Reader{r: in}, nil
	}
	return nil, fmt.Errorf("encoding %q is not supported; expected UTF-8 or ISO-8859-1", label)
}

// latin1Reader turns ISO-8859-1 bytes into UTF-8.
type latin1Reader struct {
	r   io.Reader
	buf []byte
}

func (l *latin1Reader) Read(p []byte) (int, error) {
	if len(l.buf) == 0 {
		raw := make([]byte, max(1, len(p)/2))
		n, err := l.r.Read(raw)
		for _, b := range raw[:n] {
			l.buf = utf8.AppendRune(l.buf, rune(b))
		}
		if n == 0 {
			return 0, err
		}
	}
	n := copy(p, l.buf)
	l.buf = l.buf[n:]
	return n, nil
}

// parseStamp reads a report's timestamp: RFC 3339, or the same without a
// zone (JUnit's, in UTC by convention); zero when it reads as neither.
func parseStamp(s string) time.Time {
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02T15:04:05.999999999", "2006-01-02 15:04:05.999999999"} {
		if t, err := time.Parse(layout, strings.TrimSpace(s)); err == nil {
			return t
		}
	}
	return time.Time{}
}
