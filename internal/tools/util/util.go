// Package util holds the built-in tools of one family: Utility tools, hello_world and json_validator.
package util

import "github.com/barrhawk/barrhawk/internal/tool"

// Tools returns the family's tools, in the order they are listed.
func Tools() []tool.Tool {
	return nil
}
