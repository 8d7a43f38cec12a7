// Package tooltest runs tools in tests the way an Igor does: arguments are
// validated against the tool's schema first, then the handler runs, and the
// result goes through JSON as it would on the wire.
package tooltest

import (
	"context"
	"encoding/json"
	"log/slog"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/barrhawk/barrhawk/internal/schema"
	"github.com/barrhawk/barrhawk/internal/tool"
)

// Run calls the tool named name from tools with args (a JSON object as a
// string) and returns the result decoded as generic JSON (map[string]any,
// []any, float64, ...), or the tool error. Validation failures come back as
// INVALID_ARGS errors, as they do from the front.
func Run(t testing.TB, tools []tool.Tool, name, args string) (any, *tool.Error) {
	t.Helper()
	return RunContext(t, context.Background(), tools, name, args)
}

// RunContext is Run with a context.
func RunContext(t testing.TB, ctx context.Context, tools []tool.Tool, name, args string) (any, *tool.Error) {
	t.Helper()
	res := tool.NewResources()
	t.Cleanup(func() { _, _ = res.CloseAll() })
	return runWith(t, ctx, tools, res, name, args)
}

func runWith(t testing.TB, ctx context.Context, tools []tool.Tool, res *tool.Resources, name, args string) (any, *tool.Error) {
	t.Helper()
	reg := tool.NewRegistry(tools...)
	tl, ok := reg.Get(name)
	if !ok {
		t.Fatalf("no tool %q", name)
	}
	raw := json.RawMessage(args)
	if err := schema.Validate(tl.Input, raw); err != nil {
		return nil, tool.Errorf(tool.CodeInvalidArgs, "%v", err)
	}
	out, err := tl.Run(ctx, &tool.Call{Args: raw, Resources: res, Log: slog.New(slog.DiscardHandler)})
	if err != nil {
		return nil, tool.AsError(err)
	}
	b, merr := json.Marshal(out)
	if merr != nil {
		t.Fatalf("%s: result is not JSON: %v", name, merr)
	}
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatalf("%s: result does not decode: %v", name, err)
	}
	return v, nil
}

// MustRun is Run that fails the test on a tool error.
func MustRun(t testing.TB, tools []tool.Tool, name, args string) any {
	t.Helper()
	v, err := Run(t, tools, name, args)
	if err != nil {
		t.Fatalf("%s(%s): %v", name, args, err)
	}
	return v
}

// MustFail is Run that fails the test unless the tool returns an error with
// the given code; it returns the error.
func MustFail(t testing.TB, tools []tool.Tool, name, args, code string) *tool.Error {
	t.Helper()
	v, err := Run(t, tools, name, args)
	if err == nil {
		t.Fatalf("%s(%s): want error %s, got result %v", name, args, code, v)
	}
	if err.Code != code {
		t.Fatalf("%s(%s): want error %s, got %s: %s", name, args, code, err.Code, err.Message)
	}
	return err
}

// MustFailWith is MustFail that also checks the error message: every one of
// mentions must occur in it, and each that does not is reported with
// t.Errorf (the test goes on). It returns the error.
func MustFailWith(t testing.TB, tools []tool.Tool, name, args, code string, mentions ...string) *tool.Error {
	t.Helper()
	err := MustFail(t, tools, name, args, code)
	checkMentions(t, name, args, err, mentions)
	return err
}

// checkMentions reports each of mentions err's message lacks.
func checkMentions(t testing.TB, name, args string, err *tool.Error, mentions []string) {
	t.Helper()
	for _, m := range mentions {
		if !strings.Contains(err.Message, m) {
			t.Errorf("%s(%s): error %q does not mention %s", name, args, err.Message, m)
		}
	}
}

// MustRunObject is MustRun for a tool whose result is a JSON object: it
// returns the object, and fails the test when the result is anything else.
func MustRunObject(t testing.TB, tools []tool.Tool, name, args string) map[string]any {
	t.Helper()
	m, ok := MustRun(t, tools, name, args).(map[string]any)
	if !ok {
		t.Fatalf("%s(%s): result is not an object", name, args)
	}
	return m
}

// Object returns v, a result as Run returns it, as a JSON object; it fails
// the test when v is not one.
func Object(t testing.TB, v any) map[string]any {
	t.Helper()
	m, ok := v.(map[string]any)
	if !ok {
		t.Fatalf("result is %T, not an object", v)
	}
	return m
}

// JSON decodes s, a JSON text written in a test, into generic JSON as Run
// returns results; a bad text fails the test.
func JSON(t testing.TB, s string) any {
	t.Helper()
	var v any
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		t.Fatalf("bad test JSON %s: %v", s, err)
	}
	return v
}

// SameJSON reports whether got, generic JSON such as a result of Run, is
// the JSON value of the text want.
func SameJSON(t testing.TB, got any, want string) bool {
	t.Helper()
	return reflect.DeepEqual(got, JSON(t, want))
}

// WantJSON reports an error, with both values indented, unless got
// (generic JSON such as a result of Run) is the JSON value of the text
// want; label names the check.
func WantJSON(t testing.TB, label string, got any, want string) {
	t.Helper()
	if w := JSON(t, want); !reflect.DeepEqual(got, w) {
		g, _ := json.MarshalIndent(got, "", "  ")
		wi, _ := json.MarshalIndent(w, "", "  ")
		t.Errorf("%s:\n got %s\nwant %s", label, g, wi)
	}
}

// InRoot runs a tool with root as the call's one allowed root and returns
// its result as a JSON object, or its error.
func InRoot(t testing.TB, root string, tools []tool.Tool, name, args string) (map[string]any, *tool.Error) {
	t.Helper()
	v, err := RunContext(t, tool.WithRoots(context.Background(), []string{root}), tools, name, args)
	if err != nil {
		return nil, err
	}
	return Object(t, v), nil
}

// MustInRoot is InRoot for a call that must succeed.
func MustInRoot(t testing.TB, root string, tools []tool.Tool, name, args string) map[string]any {
	t.Helper()
	got, err := InRoot(t, root, tools, name, args)
	if err != nil {
		t.Fatalf("%s %s: %v", name, args, err)
	}
	return got
}

// Marshal returns v as compact JSON text, for arguments and messages; a
// value that does not marshal gives "".
func Marshal(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// CheckFamily checks the definitions of a family of built-in utility
// tools: CheckFamilyIn with tool.CategoryUtility.
func CheckFamily(t testing.TB, tools []tool.Tool, group func(name string) string, names ...string) {
	t.Helper()
	CheckFamilyIn(t, tools, tool.CategoryUtility, group, names...)
}

// CheckFamilyIn checks the definitions of a family of built-in tools: each is
// valid (tool.Def.Validate), in category cat and run in an Igor;
// every argument, nested ones included (properties of objects and of array
// items, at any depth), has a description; the input schema marshals; the
// tools are the given names, in order; and each is listed under
// group(name). It reports every problem with t.Errorf.
func CheckFamilyIn(t testing.TB, tools []tool.Tool, cat tool.Category, group func(name string) string, names ...string) {
	t.Helper()
	got := make([]string, len(tools))
	for i, tl := range tools {
		got[i] = tl.Name
		if err := tl.Validate(); err != nil {
			t.Errorf("%s: %v", tl.Name, err)
			continue
		}
		if want := group(tl.Name); tl.Group != want || tl.Category != cat || !tl.RequiresWorker {
			t.Errorf("%s: group %q, category %q, requiresWorker %v; want group %q, category %q, requiresWorker true",
				tl.Name, tl.Group, tl.Category, tl.RequiresWorker, want, cat)
		}
		checkDescribed(t, tl.Name, tl.Input)
		if _, err := json.Marshal(tl.Input); err != nil {
			t.Errorf("%s: input schema does not marshal: %v", tl.Name, err)
		}
	}
	if !slices.Equal(got, names) {
		t.Errorf("tools = %v, want %v", got, names)
	}
}

// Group is the group function of CheckFamily for a family listed under
// one heading.
func Group(heading string) func(string) string {
	return func(string) string { return heading }
}

// checkDescribed reports every property below s, at path, that has no
// description.
func checkDescribed(t testing.TB, path string, s *jsonschema.Schema) {
	t.Helper()
	if s == nil {
		return
	}
	for name, p := range s.Properties {
		if p.Description == "" {
			t.Errorf("%s.%s has no description", path, name)
		}
		checkDescribed(t, path+"."+name, p)
	}
	checkDescribed(t, path+"[]", s.Items)
}

// Session runs several calls against one set of resources, the way calls
// reach one Igor: a connect, then queries by alias, then a disconnect. The
// resources are closed when the test ends.
type Session struct {
	t     testing.TB
	tools []tool.Tool
	Res   *tool.Resources
	// Ctx is the context of every call (context.Background when nil): a
	// test sets it to carry what the front sends, such as allowed roots.
	Ctx context.Context
}

// NewSession returns a session over tools.
func NewSession(t testing.TB, tools []tool.Tool) *Session {
	res := tool.NewResources()
	t.Cleanup(func() { _, _ = res.CloseAll() })
	return &Session{t: t, tools: tools, Res: res}
}

// Run calls a tool in the session, as Run does.
func (s *Session) Run(name, args string) (any, *tool.Error) {
	s.t.Helper()
	ctx := s.Ctx
	if ctx == nil {
		ctx = context.Background()
	}
	return runWith(s.t, ctx, s.tools, s.Res, name, args)
}

// MustRun is Run that fails the test on a tool error.
func (s *Session) MustRun(name, args string) any {
	s.t.Helper()
	v, err := s.Run(name, args)
	if err != nil {
		s.t.Fatalf("%s(%s): %v", name, args, err)
	}
	return v
}

// MustFail is Run that fails the test unless the tool returns an error
// with the given code; it returns the error.
func (s *Session) MustFail(name, args, code string) *tool.Error {
	s.t.Helper()
	v, err := s.Run(name, args)
	if err == nil {
		s.t.Fatalf("%s(%s): want error %s, got result %v", name, args, code, v)
	}
	if err.Code != code {
		s.t.Fatalf("%s(%s): want error %s, got %s: %s", name, args, code, err.Code, err.Message)
	}
	return err
}

// MustFailWith is MustFail that also fails the test unless the error's
// message contains each of mentions.
func (s *Session) MustFailWith(name, args, code string, mentions ...string) *tool.Error {
	s.t.Helper()
	err := s.MustFail(name, args, code)
	checkMentions(s.t, name, args, err, mentions)
	return err
}
