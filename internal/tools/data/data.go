// Package data holds the built-in tools of one family: Data generation.
package data

import "github.com/barrhawk/barrhawk/internal/tool"

// Tools returns the family's tools, in the order they are listed.
func Tools() []tool.Tool {
	return nil
}
