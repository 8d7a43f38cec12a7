package jsrt

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/evanw/esbuild/pkg/api"

	"github.com/barrhawk/barrhawk/internal/testsupport/lockedbuf"
	"github.com/barrhawk/barrhawk/internal/tool"
)

// compileTS does what the front does: esbuild TypeScript → CommonJS with an
// inline source map.
func compileTS(t testing.TB, src string) string {
	t.Helper()
	r := api.Transform(src, api.TransformOptions{
		Loader:     api.LoaderTS,
		Format:     api.FormatCommonJS,
		Target:     api.ESNext,
		Supported:  map[string]bool{"async-generator": false, "for-await": false},
		Sourcemap:  api.SourceMapInline,
		Sourcefile: "mytool.ts",
	})
	if len(r.Errors) > 0 {
		t.Fatalf("esbuild: %v", r.Errors)
	}
	return string(r.Code)
}

func mustLoad(t testing.TB, src string, opts Options) *Module {
	t.Helper()
	m, err := Load("mytool.ts", compileTS(t, src), opts)
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	return m
}

// toolSrc wraps a handler body into a tool file.
func toolSrc(body string, perms ...string) string {
	p := ""
	if len(perms) > 0 {
		p = "  permissions: ['" + strings.Join(perms, "', '") + "'],\n"
	}
	return "export const tool = {\n  name: 't',\n  description: 'test tool',\n  schema: { type: 'object' },\n" + p +
		"  async handler(args: any, ctx: any): Promise<any> {\n" + body + "\n  },\n};\n"
}

func call(t testing.TB, m *Module, args string) (string, *tool.Error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	return callCtx(t, m, ctx, args)
}

func callCtx(t testing.TB, m *Module, ctx context.Context, args string) (string, *tool.Error) {
	t.Helper()
	out, err := m.Call(ctx, json.RawMessage(args))
	if err != nil {
		var te *tool.Error
		if !errors.As(err, &te) {
			t.Fatalf("Call returned %T %v, want *tool.Error", err, err)
		}
		return "", te
	}
	return string(out), nil
}

// mustCall calls and fails the test on an error.
func mustCall(t testing.TB, m *Module, args string) string {
	t.Helper()
	out, err := call(t, m, args)
	if err != nil {
		t.Fatalf("Call(%s): %v", args, err)
	}
	return out
}

// jsonEq reports whether two JSON texts are equal as values.
func jsonEq(t testing.TB, got, want string) {
	t.Helper()
	var g, w any
	if err := json.Unmarshal([]byte(got), &g); err != nil {
		t.Fatalf("result %q is not JSON: %v", got, err)
	}
	if err := json.Unmarshal([]byte(want), &w); err != nil {
		t.Fatalf("bad want %q: %v", want, err)
	}
	gb, _ := json.Marshal(g)
	wb, _ := json.Marshal(w)
	if !bytes.Equal(gb, wb) {
		t.Fatalf("result = %s, want %s", gb, wb)
	}
}

// debugLogger logs every record, debug ones too, to b.
func debugLogger(b *lockedbuf.Buffer) *slog.Logger {
	return slog.New(slog.NewTextHandler(b, &slog.HandlerOptions{Level: slog.LevelDebug}))
}

// wantOutcome checks a call's outcome: the JSON result want when code is
// empty, otherwise an error with that code whose message contains contains.
func wantOutcome(t testing.TB, out string, err *tool.Error, want, code, contains string) {
	t.Helper()
	if code == "" {
		if err != nil {
			t.Fatalf("unexpected error: %v", err)
		}
		jsonEq(t, out, want)
		return
	}
	if err == nil {
		t.Fatalf("no error, result %s", out)
	}
	if err.Code != code || !strings.Contains(err.Message, contains) {
		t.Fatalf("got %s %q, want %s containing %q", err.Code, err.Message, code, contains)
	}
}
