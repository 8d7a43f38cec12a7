package jsondiff

import "github.com/barrhawk/barrhawk/internal/tool"

// DecodeArg decodes the raw JSON of the tool argument name as Decode does,
// keeping numbers exact, for tools that take any JSON value (assert_equals,
// object_diff, array_operations, ...). A failure is an INVALID_ARGS error
// naming the argument.
func DecodeArg(name string, raw []byte) (any, error) {
	v, err := Decode(raw)
	if err != nil {
		return nil, tool.Errorf(tool.CodeInvalidArgs, "argument %q: %v", name, err)
	}
	return v, nil
}
