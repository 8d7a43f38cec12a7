// Package dynamic holds the front-side file handling of dynamic tools: the
// TypeScript (or JavaScript) files that agents write at run time into the
// dynamic tools directory (default ~/.barrhawk/dynamic-tools/).
//
// It scans tool source for blocked code patterns (Scan), compiles it with
// esbuild to CommonJS that the jsrt package runs (Compile), writes the file
// that dynamic_tool_create produces (Method1Source), keeps the tools directory
// (Store, WriteTypes), snapshots it and rolls it back (Snapshots), and watches
// it for changes (Watch). It runs no tool code.
package dynamic

import (
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
	"unicode/utf8"
)

// BlockedError is the refusal of a tool's source because it contains a
// blocked code pattern (see Scan).
type BlockedError struct {
	// File is the base name of the tool file, as given to Scan.
	File string
	// Pattern is the blocked pattern as the seed names it, e.g. "eval(".
	Pattern string
	// Reason says why the pattern is blocked.
	Reason string
	// Line and Column locate the start of the match, both 1-based; Column
	// counts characters (runes), not bytes.
	Line, Column int
}

// Error reads "tool.ts:3:14: blocked code pattern `eval(`: no arbitrary code
// execution".
func (e *BlockedError) Error() string {
	return fmt.Sprintf("%s:%d:%d: blocked code pattern `%s`: %s", e.File, e.Line, e.Column, e.Pattern, e.Reason)
}

// blockedPattern is one entry of the seed's table of blocked code patterns.
type blockedPattern struct {
	name   string
	reason string
	re     *regexp.Regexp
}

// blockedPatterns is the seed's table (barrhawk-beta-readme.md, Security).
// Word boundaries keep look-alikes such as `required(`, `myeval(` or
// `renew Function(` from matching; whitespace is allowed where JavaScript
// allows it (`require (`, `process . exit`). A member access such as
// `globalThis.eval(` is still refused: it is the same eval.
var blockedPatterns = []blockedPattern{
	{"process.exit", "prevents killing the server", regexp.MustCompile(`\bprocess\s*\.\s*exit\b`)},
	{"require(", "use ES imports instead (and tools cannot import modules)", regexp.MustCompile(`\brequire\s*\(`)},
	{"import(", "no dynamic imports", regexp.MustCompile(`\bimport\s*\(`)},
	{"eval(", "no arbitrary code execution", regexp.MustCompile(`\beval\s*\(`)},
	{"new Function(", "no dynamic function creation", regexp.MustCompile(`\bnew\s+Function\s*\(`)},
	{"__proto__", "no prototype pollution", regexp.MustCompile(`__proto__`)},
	{"constructor[", "no constructor access", regexp.MustCompile(`\bconstructor\s*\[`)},
	{"child_process", "no subprocess spawning", regexp.MustCompile(`\bchild_process\b`)},
	// `\bspawn\b` does not match inside spawnSync, so each is reported by its
	// own name.
	{"Bun.spawn", "no Bun subprocess spawning", regexp.MustCompile(`\bBun\s*\.\s*spawn\b`)},
	{"Bun.spawnSync", "no Bun sync subprocess spawning", regexp.MustCompile(`\bBun\s*\.\s*spawnSync\b`)},
}

// BlockedPatterns returns the blocked code patterns, as the seed names them,
// in the order of the seed's table.
func BlockedPatterns() []string {
	out := make([]string, 0, len(blockedPatterns))
	for _, p := range blockedPatterns {
		out = append(out, p.name)
	}
	return out
}

// Scan refuses source that contains one of the seed's blocked code patterns:
// process.exit, require(, import( (dynamic import; static `import ... from`
// and `import type` lines have no parenthesis and pass), eval(,
// new Function(, __proto__, constructor[, child_process, Bun.spawn and
// Bun.spawnSync. It returns a *BlockedError for the first match in the file,
// naming the pattern, the reason, and the 1-based line and column, or nil.
//
// Like the seed's loader, Scan reads the raw text: comments and string
// literals are scanned too, so `// never call eval()` is refused. That is
// deliberate: it is simple, it cannot be fooled by a tokenizer that disagrees
// with the compiler, and a tool rarely needs these words. The scan is a first
// line of defence only; the runtime (jsrt) provides no require, process or Bun
// and is the real boundary. A TypeScript `import('./x').T` type expression is
// refused as well, for the same reason.
//
// file is used only to name the file in the error (its base name is kept).
func Scan(file, source string) error {
	best := -1
	var hit blockedPattern
	for _, p := range blockedPatterns {
		loc := p.re.FindStringIndex(source)
		if loc == nil {
			continue
		}
		if best < 0 || loc[0] < best {
			best, hit = loc[0], p
		}
	}
	if best < 0 {
		return nil
	}
	line, col := position(source, best)
	return &BlockedError{
		File:    filepath.Base(file),
		Pattern: hit.name,
		Reason:  hit.reason,
		Line:    line,
		Column:  col,
	}
}

// position converts a byte offset in source to a 1-based line and a 1-based
// column counted in runes.
func position(source string, offset int) (line, col int) {
	if offset > len(source) {
		offset = len(source)
	}
	before := source[:offset]
	line = strings.Count(before, "\n") + 1
	start := strings.LastIndexByte(before, '\n') + 1
	col = utf8.RuneCountInString(before[start:]) + 1
	return line, col
}
