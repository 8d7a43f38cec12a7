package testreport

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/barrhawk/barrhawk/internal/schema"
	"github.com/barrhawk/barrhawk/internal/tool"
)

// Source is a tool's source argument: one string or a list of them, each
// a path, a glob, a directory or the report text itself.
type Source []string

// UnmarshalJSON reads a string or an array of strings.
func (s *Source) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	switch {
	case bytes.Equal(b, []byte("null")):
		*s = nil
		return nil
	case len(b) > 0 && b[0] == '"':
		var one string
		if err := json.Unmarshal(b, &one); err != nil {
			return err
		}
		*s = Source{one}
		return nil
	}
	var list []string
	if err := json.Unmarshal(b, &list); err != nil {
		return errors.New("expected a string (a path, a glob or the report text) or a list of them")
	}
	*s = list
	return nil
}

// Files opens the files a source names, inside the allowed roots of the
// call; the tools use fs.Reader.
type Files interface {
	// Open opens a file or a directory for reading and returns its
	// absolute path.
	Open(arg, path string) (*os.File, string, error)
	// Glob returns the absolute paths of the files matching pattern, at
	// most limit of them.
	Glob(arg, pattern string, limit int) ([]string, error)
}

// MaxFiles is the most report files one call reads.
const MaxFiles = 1000

// reportExts are the names of the files read from a directory.
var reportExts = []string{".xml", ".json", ".jsonl", ".ndjson", ".tap", ".txt", ".log", ".out"}

// IsText reports whether a source item is the report itself rather than
// a path: it holds a line break, or starts (after spaces) with <, { or a
// TAP line (TAP version, ok, not ok, 1..N).
func IsText(s string) bool {
	if strings.ContainsAny(s, "\n\r") {
		return true
	}
	t := strings.TrimSpace(s)
	return strings.HasPrefix(t, "<") || strings.HasPrefix(t, "{") || isTAPLine([]byte(t))
}

// ParseFormat reads a sourceFormat argument: one of Formats, or "" or
// "auto" to detect it.
func ParseFormat(arg, s string) (Format, error) {
	if s == "" || s == "auto" {
		return "", nil
	}
	if slices.Contains(Formats, Format(s)) {
		return Format(s), nil
	}
	return "", tool.Errorf(tool.CodeInvalidArgs, "argument %q: expected auto or one of %s, got %q", arg, formatList(), s)
}

// Load reads every report src names, in order: each item's text, its
// file, the files its glob matches, or the report files of its directory
// (named *.xml, *.json, *.jsonl, *.ndjson, *.tap, *.txt, *.log or *.out,
// not hidden; subdirectories are not entered). The files of one glob or
// directory are ordered by the start time each report records when all
// of them record one, else by name in natural order (run-2 before run-10).
// format is the reports' format, or "" to detect each one's.
//
// Its errors are tool errors naming arg: INVALID_ARGS for a report that
// does not read (its file, line and what was expected) or a bound passed
// (the bound named: MaxFileBytes a file, MaxFiles and MaxResults a call),
// and what files gives (FORBIDDEN outside the roots, NOT_FOUND).
func Load(ctx context.Context, files Files, arg string, src Source, format Format) ([]*Report, error) {
	if len(src) == 0 {
		return nil, tool.Errorf(tool.CodeInvalidArgs, "argument %q: is empty; give a path, a glob, a directory or the report text", arg)
	}
	l := &loader{ctx: ctx, files: files, arg: arg, format: format, budget: MaxResults}
	var out []*Report
	for i, item := range src {
		name := arg
		if len(src) > 1 {
			name = fmt.Sprintf("%s[%d]", arg, i)
		}
		reps, err := l.item(name, item)
		if err != nil {
			return nil, err
		}
		out = append(out, reps...)
	}
	return out, nil
}

type loader struct {
	ctx    context.Context
	files  Files
	arg    string
	format Format
	budget int
	opened int
}

// item reads one item of a source.
func (l *loader) item(name, item string) ([]*Report, error) {
	if IsText(item) {
		rep, err := parse(l.ctx, strings.NewReader(item), name+" (text)", l.format, &l.budget)
		if err != nil {
			return nil, l.toolError(err)
		}
		return []*Report{rep}, nil
	}
	p := strings.TrimSpace(item)
	if p == "" {
		return nil, tool.Errorf(tool.CodeInvalidArgs, "argument %q: is empty; give a path, a glob, a directory or the report text", name)
	}
	var paths []string
	if strings.ContainsAny(p, "*?[") {
		var err error
		if paths, err = l.files.Glob(name, p, MaxFiles-l.opened); err != nil {
			return nil, err
		}
		if len(paths) == 0 {
			return nil, tool.Errorf(tool.CodeNotFound, "argument %q: the glob %q matches no file", name, p)
		}
	} else {
		f, abs, fi, err := l.open(name, p)
		if err != nil {
			return nil, err
		}
		if !fi.IsDir() {
			rep, err := l.file(f, abs, fi.Size())
			if err != nil {
				return nil, err
			}
			return []*Report{rep}, nil
		}
		entries, err := f.ReadDir(-1)
		f.Close()
		if err != nil {
			return nil, tool.Errorf(tool.CodeToolError, "list %s: %v", abs, err)
		}
		for _, e := range entries {
			if e.Type().IsRegular() && !strings.HasPrefix(e.Name(), ".") && slices.Contains(reportExts, strings.ToLower(filepath.Ext(e.Name()))) {
				paths = append(paths, filepath.Join(abs, e.Name()))
			}
		}
		if len(paths) == 0 {
			return nil, tool.Errorf(tool.CodeNotFound, "argument %q: the directory %s holds no report file (*%s)", name, abs, strings.Join(reportExts, ", *"))
		}
	}
	var reps []*Report
	for _, path := range paths {
		f, abs, fi, err := l.open(name, path)
		if err != nil {
			return nil, err
		}
		rep, err := l.file(f, abs, fi.Size())
		if err != nil {
			return nil, err
		}
		reps = append(reps, rep)
	}
	timed := !slices.ContainsFunc(reps, func(r *Report) bool { return r.Started.IsZero() })
	slices.SortStableFunc(reps, func(a, b *Report) int {
		if timed {
			if c := a.Started.Compare(b.Started); c != 0 {
				return c
			}
		}
		return naturalCompare(a.Name, b.Name)
	})
	return reps, nil
}

// file reads one opened file and closes it.
// open opens a file or a directory of the source and stats it.
func (l *loader) open(name, p string) (*os.File, string, os.FileInfo, error) {
	f, abs, err := l.files.Open(name, p)
	if err != nil {
		return nil, "", nil, err
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, "", nil, tool.Errorf(tool.CodeToolError, "stat %s: %v", abs, err)
	}
	return f, abs, fi, nil
}

func (l *loader) file(f *os.File, abs string, size int64) (*Report, error) {
	defer f.Close()
	if l.opened++; l.opened > MaxFiles {
		return nil, tool.Errorf(tool.CodeInvalidArgs, "argument %q: more than %d report files, the most one call reads (MaxFiles); give fewer", l.arg, MaxFiles)
	}
	if size > MaxFileBytes {
		return nil, tool.Errorf(tool.CodeInvalidArgs, "argument %q: %s is %d bytes, over the bound of %d bytes (%d MiB) a report file may have; split it, or give the tool its results", l.arg, abs, size, MaxFileBytes, MaxFileBytes>>20)
	}
	rep, err := parse(l.ctx, f, abs, l.format, &l.budget)
	if err != nil {
		return nil, l.toolError(err)
	}
	return rep, nil
}

// toolError turns a parse's error into a tool error.
func (l *loader) toolError(err error) error {
	var (
		pe *ParseError
		le *LimitError
		te *tool.Error
	)
	switch {
	case errors.As(err, &te):
		return te
	case isCtx(err):
		return tool.Errorf(tool.CodeCancelled, "reading the reports of argument %q: %v", l.arg, err)
	case errors.As(err, &pe):
		return tool.Errorf(tool.CodeInvalidArgs, "argument %q: %v", l.arg, pe)
	case errors.As(err, &le):
		return tool.Errorf(tool.CodeInvalidArgs, "argument %q: %v", l.arg, le)
	}
	return tool.Errorf(tool.CodeToolError, "argument %q: %v", l.arg, err)
}

// naturalCompare orders strings with their digit runs compared as
// numbers: run-2 before run-10.
func naturalCompare(a, b string) int {
	for a != "" && b != "" {
		da, db := digits(a), digits(b)
		if da > 0 && db > 0 {
			na, nb := strings.TrimLeft(a[:da], "0"), strings.TrimLeft(b[:db], "0")
			if c := cmp.Or(cmp.Compare(len(na), len(nb)), strings.Compare(na, nb)); c != 0 {
				return c
			}
			a, b = a[da:], b[db:]
			continue
		}
		if a[0] != b[0] {
			return cmp.Compare(a[0], b[0])
		}
		a, b = a[1:], b[1:]
	}
	return cmp.Compare(len(a), len(b))
}

func digits(s string) int {
	n := 0
	for n < len(s) && s[n] >= '0' && s[n] <= '9' {
		n++
	}
	return n
}

// SourceInfo tells what one report file held, for a tool's result.
type SourceInfo struct {
	Path    string   `json:"path"`
	Format  Format   `json:"format"`
	Results int      `json:"results"`
	Errors  []string `json:"errors,omitempty"`
	// RecordRun and RecordError are Report's.
	RecordRun   int64  `json:"recordRun,omitempty"`
	RecordError string `json:"recordError,omitempty"`
}

// Infos tells what each report held.
func Infos(reps []*Report) []SourceInfo {
	out := make([]SourceInfo, len(reps))
	for i, r := range reps {
		out[i] = SourceInfo{Path: r.Name, Format: r.Format, Results: len(r.Results), Errors: r.Errors, RecordRun: r.RecordRun, RecordError: r.RecordError}
	}
	return out
}

// sourceKinds says what a source item may be, for descriptions.
const sourceKinds = "a path (relative to the server's working directory, or absolute inside an allowed root), a glob " +
	"(reports/*.xml, test-results/**/*.json), a directory (its *.xml, *.json, *.jsonl, *.ndjson, *.tap, *.txt, *.log and *.out files), " +
	"the report text itself, or a list of these"

// formatsRead says which formats are read, for descriptions.
const formatsRead = "JUnit XML (pytest, Maven Surefire with its reruns, Jest's junit reporter, gotestsum, Node's test runner), " +
	"TAP 13/14 (subtests, YAML diagnostics), go test -json, Playwright's JSON reporter (retries, attachments) and Jest's --json, " +
	"the format detected from the content"

// SourceProp is the source argument of a tool that takes test results:
// instead names the argument it replaces.
func SourceProp(name, instead string) schema.Prop {
	p := schema.Any(name, fmt.Sprintf("Test results as a test runner wrote them, instead of %s: %s. Read: %s. "+
		"Several files are read as one run. A file may have up to %d MiB, a call %d files and %d results; "+
		"what does not read is an error naming the file and line", instead, sourceKinds, formatsRead, MaxFileBytes>>20, MaxFiles, MaxResults)).
		Types("string", "array")
	p.Schema.Items = schema.StringItems()
	return p
}

// HistoryProp is the source argument of a tool that takes a run
// history: instead names the argument it replaces.
func HistoryProp(name, instead string) schema.Prop {
	p := schema.Any(name, fmt.Sprintf("A run history as test runners wrote it, instead of %s: report files in time order, one "+
		"run each: %s (the files of a directory or glob are ordered by the start time each report records, else by name, "+
		"run-2 before run-10). Read: %s. A test is named by its suite and title (suite > title); a test that failed "+
		"and then passed on a retry within a run is a retried pass. A file may have up to %d MiB, a call %d files and %d results",
		instead, sourceKinds, formatsRead, MaxFileBytes>>20, MaxFiles, MaxResults)).Types("string", "array")
	p.Schema.Items = schema.StringItems()
	return p
}

// FormatProp is the sourceFormat argument.
func FormatProp() schema.Prop {
	values := []any{"auto"}
	for _, f := range Formats {
		values = append(values, string(f))
	}
	return schema.String("sourceFormat", "Format of source: auto (detected from each file's content), junit, tap, "+
		"gotest (go test -json), playwright (Playwright's JSON reporter) or jest (jest --json)").Enum(values...).Default("auto")
}
