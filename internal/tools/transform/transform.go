// Package transform holds the data transformation tools: base64_encode,
// json_format, object_diff and array_operations.
package transform

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/barrhawk/barrhawk/internal/jsondiff"
	"github.com/barrhawk/barrhawk/internal/schema"
	"github.com/barrhawk/barrhawk/internal/tool"
)

// Group is the heading these tools are listed under.
const Group = "Data Transformation"

// Tools returns the family's tools, in the order they are listed.
func Tools() []tool.Tool {
	return []tool.Tool{base64Encode(), jsonFormat(), objectDiff(), arrayOperations()}
}

func base64Encode() tool.Tool {
	type args struct {
		Text    string `json:"text"`
		Action  string `json:"action"`
		URLSafe bool   `json:"urlSafe"`
	}
	return tool.Tool{
		Def: tool.Def{
			Name: "base64_encode",
			Description: "Encode text (as UTF-8) to base64, or decode base64 back. The standard alphabet uses + and / " +
				"with = padding; urlSafe uses - and _ without padding (RFC 4648 §5, as in JWTs). Decoding accepts " +
				"input with or without padding, and line breaks. Returns {action, urlSafe, result}; a decode also " +
				"returns byteLength, validUtf8 and resultEncoding: result is the decoded text (\"utf8\"), or, when " +
				"the bytes are not valid UTF-8, their hex (\"hex\") so that nothing is lost.",
			Phrases:  []string{"base64 decode", "decode jwt payload", "atob", "btoa", "b64", "base64url", "base64 to text", "decode encoded string", "encoded blob to plain text"},
			Group:    Group,
			Category: tool.CategoryUtility,
			Input: schema.Object(
				schema.String("text", "Text to encode, or base64 to decode").Required(),
				schema.String("action", "Whether to encode or decode").Enum("encode", "decode").Default("encode"),
				schema.Boolean("urlSafe", "Use the URL-safe alphabet (- and _, no padding) instead of the standard one (+ and /, = padding)").Default(false),
			),
			RequiresWorker: true,
			Quick:          true,
		},
		Run: tool.Typed(func(_ context.Context, in args, _ *tool.Call) (any, error) {
			if in.Action == "" {
				in.Action = "encode"
			}
			out := map[string]any{"action": in.Action, "urlSafe": in.URLSafe}
			if in.Action == "encode" {
				enc := base64.StdEncoding
				if in.URLSafe {
					enc = base64.RawURLEncoding
				}
				out["result"] = enc.EncodeToString([]byte(in.Text))
				return out, nil
			}
			b, err := decodeBase64(in.Text, in.URLSafe)
			if err != nil {
				return nil, err
			}
			out["byteLength"] = len(b)
			out["validUtf8"] = utf8.Valid(b)
			if utf8.Valid(b) {
				out["result"], out["resultEncoding"] = string(b), "utf8"
			} else {
				out["result"], out["resultEncoding"] = hex.EncodeToString(b), "hex"
			}
			return out, nil
		}),
	}
}

// decodeBase64 decodes s, padded or not, and says where it is broken when
// it cannot.
func decodeBase64(s string, urlSafe bool) ([]byte, error) {
	const space = " \t\r\n"
	lead := len(s) - len(strings.TrimLeft(s, space))
	body := strings.Trim(s, space)
	data := strings.TrimRight(body, "=")
	if pad := len(body) - len(data); pad > 2 {
		return nil, tool.Errorf(tool.CodeInvalidArgs,
			"argument \"text\" is not valid base64: byte offset %d: too much padding (%d '=' characters; at most 2 end base64)",
			lead+len(data)+2, pad)
	}
	enc, alphabet := base64.RawStdEncoding, "standard (A-Z a-z 0-9 + /)"
	if urlSafe {
		enc, alphabet = base64.RawURLEncoding, "URL-safe (A-Z a-z 0-9 - _)"
	}
	b, err := enc.DecodeString(data)
	var ce base64.CorruptInputError
	if !errors.As(err, &ce) {
		return b, err
	}
	n := int(ce)
	r, _ := utf8.DecodeRuneInString(data[min(n, len(data)):])
	var why string
	switch {
	case n < len(data) && r == '=':
		why = "'=' padding may only come at the end"
	case n < len(data) && strings.ContainsRune("-_", r) && !urlSafe:
		why = fmt.Sprintf("%q is not in the standard alphabet; it is URL-safe base64: set urlSafe=true", r)
	case n < len(data) && strings.ContainsRune("+/", r) && urlSafe:
		why = fmt.Sprintf("%q is not in the URL-safe alphabet; it is standard base64: set urlSafe=false", r)
	case n < len(data) && !validBase64Rune(r):
		why = fmt.Sprintf("%q is not in the %s alphabet", r, alphabet)
	default:
		why = fmt.Sprintf("the input looks truncated: it has %d base64 characters (padding aside), "+
			"and a length of 4n+1 cannot be decoded", len(strings.Join(strings.Fields(data), "")))
	}
	return nil, tool.Errorf(tool.CodeInvalidArgs, "argument \"text\" is not valid base64: byte offset %d: %s", lead+n, why)
}

func validBase64Rune(r rune) bool {
	return r >= 'A' && r <= 'Z' || r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || strings.ContainsRune("+/-_\r\n", r)
}

func jsonFormat() tool.Tool {
	type args struct {
		JSON   string `json:"json"`
		Action string `json:"action"`
		Indent *int   `json:"indent"`
	}
	return tool.Tool{
		Def: tool.Def{
			Name: "json_format",
			Description: "Pretty-print, minify or validate JSON text, keeping key order and number literals. Returns " +
				"result; validate returns valid, and type or error, line, column, offset. Invalid JSON to format is " +
				"INVALID_ARGS.",
			Phrases:  []string{"prettify json", "beautify json", "compress json whitespace", "jq .", "json lint", "is this valid json", "fix json indentation", "json syntax error line", "indent it so I can read it", "minify json onto one line"},
			Group:    Group,
			Category: tool.CategoryUtility,
			Input: schema.Object(
				schema.String("json", "JSON text").Required(),
				schema.String("action", "What to do").Enum("format", "minify", "validate").Default("format"),
				schema.Integer("indent", "Spaces per level (format)").Min(1).Max(10).Default(2),
			),
			RequiresWorker: true,
			Quick:          true,
		},
		Run: tool.Typed(func(_ context.Context, in args, _ *tool.Call) (any, error) {
			if in.Action == "" {
				in.Action = "format"
			}
			src := []byte(in.JSON)
			perr := syntaxError(src)
			switch {
			case in.Action == "validate" && perr != nil:
				return map[string]any{
					"action": "validate", "valid": false, "error": perr.msg,
					"line": perr.line, "column": perr.column, "offset": perr.offset,
				}, nil
			case in.Action == "validate":
				v, _ := jsondiff.Decode(src)
				return map[string]any{"action": "validate", "valid": true, "type": jsondiff.TypeOf(v)}, nil
			case perr != nil:
				return nil, tool.Errorf(tool.CodeInvalidArgs, "argument \"json\" is not valid JSON: line %d, column %d: %s",
					perr.line, perr.column, perr.msg)
			}
			var buf bytes.Buffer
			if in.Action == "minify" {
				if err := json.Compact(&buf, src); err != nil {
					return nil, err
				}
				return map[string]any{"action": "minify", "result": buf.String()}, nil
			}
			indent := 2
			if in.Indent != nil {
				indent = *in.Indent
			}
			if err := json.Indent(&buf, bytes.TrimSpace(src), "", strings.Repeat(" ", indent)); err != nil {
				return nil, err
			}
			return map[string]any{"action": "format", "result": buf.String(), "indent": indent}, nil
		}),
	}
}

// posError is a JSON syntax error and where it is.
type posError struct {
	msg                  string
	line, column, offset int
}

// syntaxError returns where src stops being JSON, or nil when it is valid.
func syntaxError(src []byte) *posError {
	if json.Valid(src) {
		return nil
	}
	var se *json.SyntaxError
	if err := json.Unmarshal(src, new(json.RawMessage)); !errors.As(err, &se) {
		msg := "not valid JSON"
		if err != nil {
			msg = err.Error()
		}
		return &posError{msg: msg, line: 1, column: 1}
	}
	// Offset counts the bytes read, the offending one included; at the end
	// of the input it is the length.
	p := int(se.Offset)
	if p > 0 && p <= len(src) && !strings.Contains(se.Error(), "unexpected end") {
		p--
	}
	p = min(p, len(src))
	line := 1 + bytes.Count(src[:p], []byte("\n"))
	lineStart := bytes.LastIndexByte(src[:p], '\n') + 1
	return &posError{msg: se.Error(), line: line, column: 1 + utf8.RuneCount(src[lineStart:p]), offset: p}
}
