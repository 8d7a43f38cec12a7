// Package testanalysis holds the built-in tools of one family: Test analysis.
package testanalysis

import "github.com/barrhawk/barrhawk/internal/tool"

// Tools returns the family's tools, in the order they are listed.
func Tools() []tool.Tool {
	return nil
}
