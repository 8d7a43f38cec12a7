// Package fspath answers whether a path lies within a directory, the one
// check behind every confinement of BarrHawk's (allowed roots, where
// screenshots go, allowed bind mounts, evidence the dashboard serves).
// It compares clean absolute paths as they are: resolving symbolic links
// first, where they matter, is the caller's part.
package fspath

import (
	"path/filepath"
	"strings"
)

// Within reports whether path is dir or below it. Both must be clean and
// absolute; "/" holds every absolute path.
func Within(path, dir string) bool {
	return path == dir || strings.HasPrefix(path, strings.TrimSuffix(dir, string(filepath.Separator))+string(filepath.Separator))
}

// WithinAny reports whether path is within one of dirs (Within); empty
// entries are skipped.
func WithinAny(path string, dirs []string) bool {
	for _, d := range dirs {
		if d != "" && Within(path, d) {
			return true
		}
	}
	return false
}
