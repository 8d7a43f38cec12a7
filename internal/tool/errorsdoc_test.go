package tool

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"strconv"
	"strings"
	"testing"
)

// docs/ERRORS.md is made from the error codes' doc comments in errors.go,
// so that the codes are described in one place; this test keeps the two
// in step (UPDATE_DOCS=1 rewrites the page).
func TestErrorsDoc(t *testing.T) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "errors.go", nil, parser.ParseComments)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	b.WriteString("# Error codes\n\n")
	b.WriteString("Every failed call answers with one of these codes, as `CODE: message` in the text content\n")
	b.WriteString("(and `isError: true`). The code is stable, for agents and tests to match on; the message says\n")
	b.WriteString("what was wrong and what would be right. Made from `internal/tool/errors.go`\n")
	b.WriteString("(`UPDATE_DOCS=1 go test ./internal/tool -run TestErrorsDoc`).\n\n")
	b.WriteString("| code | meaning |\n| --- | --- |\n")
	n := 0
	for _, decl := range f.Decls {
		gd, ok := decl.(*ast.GenDecl)
		if !ok || gd.Tok != token.CONST {
			continue
		}
		for _, spec := range gd.Specs {
			vs := spec.(*ast.ValueSpec)
			if len(vs.Names) != 1 || !strings.HasPrefix(vs.Names[0].Name, "Code") || len(vs.Values) != 1 {
				continue
			}
			lit, ok := vs.Values[0].(*ast.BasicLit)
			if !ok {
				continue
			}
			code, _ := strconv.Unquote(lit.Value)
			text := strings.Join(strings.Fields(vs.Doc.Text()), " ")
			_, meaning, found := strings.Cut(text, ": ")
			if !found || meaning == "" {
				t.Errorf("%s has no doc comment of the form \"%s: meaning\"", vs.Names[0].Name, vs.Names[0].Name)
				continue
			}
			b.WriteString("| `" + code + "` | " + strings.ReplaceAll(meaning, "|", "\\|") + " |\n")
			n++
		}
	}
	if n < 10 {
		t.Fatalf("found only %d codes in errors.go", n)
	}
	want := b.String()
	const page = "../../docs/ERRORS.md"
	if os.Getenv("UPDATE_DOCS") == "1" {
		if err := os.WriteFile(page, []byte(want), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	got, err := os.ReadFile(page)
	if err != nil || string(got) != want {
		t.Fatalf("docs/ERRORS.md is out of date with errors.go; run: UPDATE_DOCS=1 go test ./internal/tool -run TestErrorsDoc")
	}
}
