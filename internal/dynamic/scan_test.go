package dynamic

import (
	"errors"
	"strings"
	"testing"
)

func TestScanBlocked(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		src     string
		pattern string
		line    int
		col     int
	}{
		{"process.exit", "const a = 1;\nprocess.exit(1);\n", "process.exit", 2, 1},
		{"process . exit spaced", "  process .exit(0)", "process.exit", 1, 3},
		{"require", "export const x = 1;\n\nconst fs = require('fs');", "require(", 3, 12},
		{"require with space", "const fs = require ('fs');", "require(", 1, 12},
		{"dynamic import", "async function f() {\n  const m = await import('fs');\n}", "import(", 2, 19},
		{"dynamic import spaced", "const m = import ('x');", "import(", 1, 11},
		{"eval", "const x = eval('1+1');", "eval(", 1, 11},
		{"globalThis.eval", "globalThis.eval('1')", "eval(", 1, 12},
		{"new Function", "const f = new Function('return 1');", "new Function(", 1, 11},
		{"new  Function spaced", "const f = new  Function ('return 1');", "new Function(", 1, 11},
		{"__proto__", "const o = {};\no.__proto__.polluted = 1;", "__proto__", 2, 3},
		{"constructor[", "const c = ({}).constructor['constructor'];", "constructor[", 1, 16},
		{"child_process", "import type { X } from 'node:child_process';", "child_process", 1, 30},
		{"Bun.spawn", "Bun.spawn(['ls']);", "Bun.spawn", 1, 1},
		{"Bun.spawnSync", "\n\n  Bun.spawnSync(['ls']);", "Bun.spawnSync", 3, 3},
		{"in a comment (raw text is scanned)", "// do not call eval() here\nconst a = 1;", "eval(", 1, 16},
		{"in a string (raw text is scanned)", `const s = "process.exit";`, "process.exit", 1, 12},
		{"column counts runes", "const é = 'ü'; eval('x')", "eval(", 1, 16},
		{"first match wins", "eval('a');\nrequire('b');", "eval(", 1, 1},
		{"earliest by position, not table order", "require('b'); process.exit(1);", "require(", 1, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			err := Scan("/some/dir/tool.ts", tt.src)
			var be *BlockedError
			if !errors.As(err, &be) {
				t.Fatalf("Scan = %v, want *BlockedError", err)
			}
			if be.Pattern != tt.pattern || be.Line != tt.line || be.Column != tt.col {
				t.Errorf("got pattern %q at %d:%d, want %q at %d:%d", be.Pattern, be.Line, be.Column, tt.pattern, tt.line, tt.col)
			}
			if be.File != "tool.ts" {
				t.Errorf("File = %q, want the base name tool.ts", be.File)
			}
			if be.Reason == "" {
				t.Error("no reason")
			}
			msg := err.Error()
			for _, want := range []string{"tool.ts:", be.Pattern, be.Reason} {
				if !strings.Contains(msg, want) {
					t.Errorf("error %q does not contain %q", msg, want)
				}
			}
		})
	}
}

func TestScanAllowed(t *testing.T) {
	t.Parallel()
	tests := []struct{ name, src string }{
		{"import type", "import type { DynamicTool } from '../../shared/types.js';"},
		{"static import line", "import { a } from 'b';\nimport x from \"y\";"},
		{"required(", "const required = (x) => x;\nrequired(1);"},
		{"myeval(", "function myeval(s) { return s }\nmyeval('x');"},
		{"evaluate(", "evaluate('x');"},
		{"reimport(", "reimport('x');"},
		{"newFunction(", "const g = newFunction(1); const h = renew Function;"},
		{"constructor without [", "class A { constructor() {} }\nconst c = a.constructor.name;"},
		{"process.exitCode", "const c = process.exitCode;"},
		{"Bun.spawner", "Bun.spawner(1);"},
		{"child_processes", "const child_processes = 1;"},
		{"proto", "Object.getPrototypeOf(x); const proto = 1;"},
		{"empty", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if err := Scan("tool.ts", tt.src); err != nil {
				t.Errorf("Scan(%q) = %v, want nil", tt.src, err)
			}
		})
	}
}

func TestBlockedPatternsListsTheSeedTable(t *testing.T) {
	t.Parallel()
	got := strings.Join(BlockedPatterns(), " ")
	want := "process.exit require( import( eval( new Function( __proto__ constructor[ child_process Bun.spawn Bun.spawnSync"
	if got != want {
		t.Errorf("BlockedPatterns() = %q, want %q", got, want)
	}
}
