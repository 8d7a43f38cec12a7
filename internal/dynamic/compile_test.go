package dynamic

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// seedReverseString is the seed's Method 2 example file, verbatim
// (barrhawk-beta-readme.md, Creating Tools).
var seedReverseString = mustReadTestdata("reverse_string.ts")

// mustReadTestdata reads a file of testdata/, shared with jsrt's tests.
func mustReadTestdata(name string) string {
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		panic(err)
	}
	return string(b)
}

func TestCompileSeedFile(t *testing.T) {
	t.Parallel()
	c, err := Compile("/tools/reverse_string.ts", seedReverseString)
	if err != nil {
		t.Fatalf("Compile: %v", err)
	}
	sum := sha256.Sum256([]byte(seedReverseString))
	if c.Hash != hex.EncodeToString(sum[:]) {
		t.Errorf("Hash = %s, want the sha256 of the source", c.Hash)
	}
	if c.File != "/tools/reverse_string.ts" || c.Source != seedReverseString {
		t.Errorf("File/Source not kept: %q", c.File)
	}
	for _, want := range []string{"module.exports", "reverse_string", "async handler(args)", "//# sourceMappingURL=data:application/json;base64,"} {
		if !strings.Contains(c.JS, want) {
			t.Errorf("JS lacks %q:\n%s", want, c.JS)
		}
	}
	for _, bad := range []string{"import ", "require(", "types.js", " as string"} {
		if strings.Contains(c.JS, bad) {
			t.Errorf("JS still contains %q:\n%s", bad, c.JS)
		}
	}
}

func TestCompileLowersWhatGojaLacks(t *testing.T) {
	t.Parallel()
	src := "export async function* g(it: AsyncIterable<number>) {\n  for await (const x of it) yield x * 2;\n}\n"
	c, err := Compile("gen.ts", src)
	if err != nil {
		t.Fatalf("Compile: %v", err)
	}
	code, _, _ := strings.Cut(c.JS, "//# sourceMappingURL")
	for _, bad := range []string{"for await", "async function*"} {
		if strings.Contains(code, bad) {
			t.Errorf("JS still contains %q:\n%s", bad, code)
		}
	}
}

func TestCompileErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		file    string
		src     string
		wantErr string // exact Error() text
		line    int
		col     int
	}{
		{
			name:    "syntax error",
			file:    "/x/tool.ts",
			src:     "export const tool = {\n  name: 'x',\n  handler() { return 1 }\n  description: 'y',\n};\n",
			wantErr: `tool.ts:4:3: Expected "}" but found "description"`,
			line:    4, col: 3,
		},
		{
			name:    "missing semicolon position in runes",
			file:    "tool.ts",
			src:     "const a = 1;\nconst b = 2;\nconst é = { x: 1 ;\n",
			wantErr: `tool.ts:3:18: Expected "}" but found ";"`,
			line:    3, col: 18,
		},
		{
			name:    "TypeScript in a .js file",
			file:    "tool.js",
			src:     "export const tool = {};\nconst x: number = 1;\n",
			wantErr: `tool.js:2:8: Expected ";" but found ":"`,
			line:    2, col: 8,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := Compile(tt.file, tt.src)
			var ce *CompileError
			if !errors.As(err, &ce) {
				t.Fatalf("Compile = %v, want *CompileError", err)
			}
			if err.Error() != tt.wantErr {
				t.Errorf("Error() = %q, want %q", err.Error(), tt.wantErr)
			}
			if ce.Line != tt.line || ce.Column != tt.col {
				t.Errorf("at %d:%d, want %d:%d", ce.Line, ce.Column, tt.line, tt.col)
			}
		})
	}
}

func TestCompileRefusesImports(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		src  string
		spec string
		line int
	}{
		{"default import of fs, used", "import fs from 'fs';\nexport const tool = { handler() { return fs.readFileSync('/etc/passwd', 'utf8') } };\n", "fs", 1},
		{"default import of fs, unused", "import fs from 'fs';\nexport const tool = {};\n", "fs", 1},
		{"namespace import", "// header\nimport * as fs from \"node:fs\";\nexport const tool = { x: fs };\n", "node:fs", 2},
		{"named import", "import { readFileSync } from 'fs';\nexport const tool = { x: readFileSync };\n", "fs", 1},
		{"named import used only as a type", "import { DynamicTool } from './barrhawk';\nexport const tool: DynamicTool = {} as any;\n", "./barrhawk", 1},
		{"inline type specifier", "import { type DynamicTool } from './barrhawk';\nexport const tool: DynamicTool = {} as any;\n", "./barrhawk", 1},
		{"side-effect import", "import 'fs';\nexport const tool = {};\n", "fs", 1},
		{"export from", "export const tool = {};\nexport * from './other';\n", "./other", 2},
		{"multi-line import", "import {\n  a,\n  b,\n} from 'lib';\nexport const tool = { a, b };\n", "lib", 4},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := Compile("tool.ts", tt.src)
			var ce *CompileError
			if !errors.As(err, &ce) {
				t.Fatalf("Compile = %v, want *CompileError", err)
			}
			if !strings.Contains(ce.Message, "tools cannot import modules") || !strings.Contains(ce.Message, `"`+tt.spec+`"`) {
				t.Errorf("message %q should name %q and say tools cannot import modules", ce.Message, tt.spec)
			}
			if ce.Line != tt.line {
				t.Errorf("line %d, want %d (%v)", ce.Line, tt.line, err)
			}
		})
	}
	t.Run("js file", func(t *testing.T) {
		t.Parallel()
		_, err := Compile("tool.js", "import x from 'y';\nexport const tool = { x };\n")
		var ce *CompileError
		if !errors.As(err, &ce) || !strings.Contains(ce.Message, `"y"`) {
			t.Fatalf("Compile = %v, want a refusal of the import of y", err)
		}
	})
}

func TestCompileAllowsTypeImports(t *testing.T) {
	t.Parallel()
	src := "import type { DynamicTool, ToolContext } from './barrhawk';\n" +
		"import type * as T from 'anything-at-all';\n" +
		"export type { JSONSchema } from './barrhawk';\n" +
		"export const tool: DynamicTool = { name: 'a', description: 'b', schema: { type: 'object' }, handler(args: T.X, ctx: ToolContext) { return 1 } };\n"
	c, err := Compile("a.ts", src)
	if err != nil {
		t.Fatalf("Compile: %v", err)
	}
	if strings.Contains(c.JS, "require(") {
		t.Errorf("JS requires something:\n%s", c.JS)
	}
}

func TestCompileJS(t *testing.T) {
	t.Parallel()
	tests := []struct{ name, src string }{
		{"ESM", "export const tool = {\n  name: 'js_tool',\n  description: 'd',\n  schema: { type: 'object' },\n  async handler(args) { return args.x; },\n};\n"},
		{"CommonJS", "exports.tool = { name: 'js_tool', description: 'd', schema: { type: 'object' }, handler: (args) => args.x };\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c, err := Compile("js_tool.js", tt.src)
			if err != nil {
				t.Fatalf("Compile: %v", err)
			}
			if !strings.Contains(c.JS, "js_tool") || !strings.Contains(c.JS, "sourceMappingURL") {
				t.Errorf("unexpected JS:\n%s", c.JS)
			}
		})
	}
}

func TestCompileRefuses(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, file, src string
		blocked         bool
		want            string
	}{
		{"blocked pattern before compiling", "t.ts", "export const tool = { handler() { process.exit(1) } };", true, "process.exit"},
		{"blocked pattern even in broken code", "t.ts", "eval('x'", true, "eval("},
		{"declaration file", "barrhawk.d.ts", Types(), false, "not a tool"},
		{"other extension", "t.py", "print(1)", false, "unsupported extension"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := Compile(tt.file, tt.src)
			if err == nil {
				t.Fatal("Compile succeeded")
			}
			var be *BlockedError
			if errors.As(err, &be) != tt.blocked {
				t.Errorf("BlockedError = %v, want %v (%v)", !tt.blocked, tt.blocked, err)
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %q does not contain %q", err, tt.want)
			}
		})
	}
}
