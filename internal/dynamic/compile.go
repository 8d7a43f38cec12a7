package dynamic

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/evanw/esbuild/pkg/api"
)

// Compiled is a tool file compiled to CommonJS for the jsrt runtime.
type Compiled struct {
	// File is the path of the tool file as given to Compile.
	File string
	// Source is the TypeScript or JavaScript source.
	Source string
	// JS is the compiled CommonJS module, with an inline source map whose
	// source is the base name of File.
	JS string
	// Hash is the hex SHA-256 of Source: equal hashes mean equal tools.
	Hash string
}

// CompileError is a tool file that does not compile, located in its source.
type CompileError struct {
	// File is the base name of the tool file.
	File string
	// Line and Column locate the error, both 1-based; Column counts
	// characters (runes). Line is 0 when the error has no location.
	Line, Column int
	// Message is the compiler's message, e.g. `Expected ";" but found "}"`.
	Message string
}

// Error reads `tool.ts:3:14: Expected ";" but found "}"`.
func (e *CompileError) Error() string {
	if e.Line <= 0 {
		return e.File + ": " + e.Message
	}
	return fmt.Sprintf("%s:%d:%d: %s", e.File, e.Line, e.Column, e.Message)
}

// compileTsconfig makes esbuild keep every import that is not written as a
// type-only import (`import type`, `export type`), so that Compile sees it
// and refuses it, instead of silently dropping imports whose bindings happen
// to be unused or used only as types.
const compileTsconfig = `{"compilerOptions":{"verbatimModuleSyntax":true}}`

// requireCall finds the require calls that esbuild writes for the imports it
// keeps. Scan refuses `require(` in the source, so any such call in the
// output comes from an import or export-from statement.
var requireCall = regexp.MustCompile(`(?:^|[^\w$.])require\(\s*(?:"((?:[^"\\]|\\.)*)"|'((?:[^'\\]|\\.)*)')?`)

// Compile scans source for blocked code patterns (Scan) and compiles it with
// esbuild: loader TS for a .ts file and JS for a .js file, CommonJS format,
// target ESNext with async generators and for-await lowered (goja lacks
// them), and an inline source map naming the file by its base name.
//
// Tools cannot import modules: type-only imports (`import type ...`,
// `export type ... from`) are erased and allowed, whatever their path; every
// other import or export-from, including `import { type X } from` and
// `import 'x'`, is refused with a *CompileError naming the module.
//
// Errors are a *BlockedError (blocked pattern), a *CompileError (syntax error
// or import), or a plain error for an unsupported file extension.
func Compile(file, source string) (*Compiled, error) {
	base := filepath.Base(file)
	var loader api.Loader
	switch ext := filepath.Ext(base); {
	case strings.HasSuffix(base, ".d.ts"):
		return nil, fmt.Errorf("compile %s: a declaration file (.d.ts) is not a tool", base)
	case ext == ".ts":
		loader = api.LoaderTS
	case ext == ".js":
		loader = api.LoaderJS
	default:
		return nil, fmt.Errorf("compile %s: unsupported extension %q: a tool is a .ts or .js file", base, ext)
	}
	if err := Scan(base, source); err != nil {
		return nil, err
	}
	res := api.Transform(source, api.TransformOptions{
		LogLevel:    api.LogLevelSilent,
		Loader:      loader,
		Format:      api.FormatCommonJS,
		Target:      api.ESNext,
		Supported:   map[string]bool{"async-generator": false, "for-await": false},
		Sourcemap:   api.SourceMapInline,
		Sourcefile:  base,
		TsconfigRaw: compileTsconfig,
	})
	if len(res.Errors) > 0 {
		return nil, compileError(base, res.Errors[0])
	}
	js := string(res.Code)
	if m := requireCall.FindStringSubmatch(js); m != nil {
		spec := m[1] + m[2]
		if s, err := strconv.Unquote(`"` + spec + `"`); err == nil {
			spec = s
		}
		return nil, importError(base, source, spec)
	}
	sum := sha256.Sum256([]byte(source))
	return &Compiled{File: file, Source: source, JS: js, Hash: hex.EncodeToString(sum[:])}, nil
}

// compileError converts an esbuild message to a *CompileError with a 1-based
// rune column.
func compileError(file string, m api.Message) *CompileError {
	e := &CompileError{File: file, Message: m.Text}
	if loc := m.Location; loc != nil {
		e.Line = loc.Line
		col := loc.Column
		if col > len(loc.LineText) {
			col = len(loc.LineText)
		}
		if col < 0 {
			col = 0
		}
		e.Column = utf8.RuneCountInString(loc.LineText[:col]) + 1
	}
	return e
}

// importError builds the refusal of an import of spec, located at the quoted
// module name after the first `from` or `import` that names it.
func importError(file, source, spec string) *CompileError {
	e := &CompileError{File: file}
	if spec == "" {
		e.Message = "tools cannot import modules; use `import type` for types (it is erased)"
		return e
	}
	e.Message = fmt.Sprintf("import of %q refused: tools cannot import modules; only `import type` is allowed (it is erased)", spec)
	re := regexp.MustCompile(`\b(?:from|import)\s*(["'])` + regexp.QuoteMeta(spec) + `["']`)
	if loc := re.FindStringSubmatchIndex(source); loc != nil {
		e.Line, e.Column = position(source, loc[2])
	}
	return e
}
