package dynamic

import (
	"bytes"
	_ "embed"
	"fmt"
	"os"
	"path/filepath"
)

// TypesFile is the name of the TypeScript declaration file that WriteTypes
// puts in the tools directory. Like every *.d.ts file it is never a tool.
const TypesFile = "barrhawk.d.ts"

//go:embed barrhawk.d.ts
var typesSource string

// Types returns the TypeScript declaration file for tool authors (the text
// of barrhawk.d.ts): it declares DynamicTool, ToolContext and the types they
// use.
func Types() string { return typesSource }

// WriteTypes writes Types() as barrhawk.d.ts in dir, atomically, unless
// the file already holds exactly that text. dir must exist.
func WriteTypes(dir string) error {
	path := filepath.Join(dir, TypesFile)
	if old, err := os.ReadFile(path); err == nil && bytes.Equal(old, []byte(typesSource)) {
		return nil
	}
	if err := writeFileAtomic(dir, TypesFile, []byte(typesSource), 0o644); err != nil {
		return fmt.Errorf("write types: %w", err)
	}
	return nil
}
