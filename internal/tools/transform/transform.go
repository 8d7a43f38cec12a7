// Package transform holds the built-in tools of one family: Data transformation.
package transform

import "github.com/barrhawk/barrhawk/internal/tool"

// Tools returns the family's tools, in the order they are listed.
func Tools() []tool.Tool {
	return nil
}
