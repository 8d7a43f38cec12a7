package wire

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"unicode/utf8"

	"github.com/barrhawk/barrhawk/internal/rawjson"
	"github.com/barrhawk/barrhawk/internal/tool"
)

// The messages of every call, Task and TaskResult, are written and read
// here without reflection: encoding/json re-validated and compacted the
// raw arguments and results on every message and decoded into the large
// Envelope by reflection, a fifth of the Igor's CPU per call. The wire form
// is the one encoding/json writes; any other message, or a task or result
// with members this reader does not know, goes through encoding/json.

// appendTask appends t as JSON.
func appendTask(b []byte, t *Task) ([]byte, error) {
	b = append(b, `{"id":`...)
	b = rawjson.AppendString(b, t.ID)
	b = append(b, `,"tool":`...)
	b = rawjson.AppendString(b, t.Tool)
	if len(t.Args) > 0 {
		var err error
		b = append(b, `,"args":`...)
		if b, err = appendRaw(b, t.Args); err != nil {
			return b, fmt.Errorf("args: %w", err)
		}
	}
	if t.Timeout != 0 {
		b = append(b, `,"timeout":`...)
		b = strconv.AppendInt(b, t.Timeout, 10)
	}
	if t.Context != nil {
		ctx, err := json.Marshal(t.Context)
		if err != nil {
			return b, fmt.Errorf("context: %w", err)
		}
		b = append(b, `,"context":`...)
		b = append(b, ctx...)
	}
	if len(t.Roots) > 0 {
		roots, err := json.Marshal(t.Roots)
		if err != nil {
			return b, fmt.Errorf("roots: %w", err)
		}
		b = append(b, `,"roots":`...)
		b = append(b, roots...)
	}
	return append(b, '}'), nil
}

// appendTaskResult appends r as JSON. Its Result comes from json.Marshal
// in the Igor, so it is valid and on one line already.
func appendTaskResult(b []byte, r *TaskResult) ([]byte, error) {
	b = append(b, `{"id":`...)
	b = rawjson.AppendString(b, r.ID)
	b = append(b, `,"status":`...)
	b = rawjson.AppendString(b, r.Status)
	if len(r.Result) > 0 {
		var err error
		b = append(b, `,"result":`...)
		if b, err = appendRaw(b, r.Result); err != nil {
			return b, fmt.Errorf("result: %w", err)
		}
	}
	if r.Error != nil {
		data, err := json.Marshal(r.Error)
		if err != nil {
			return b, fmt.Errorf("error: %w", err)
		}
		b = append(b, `,"error":`...)
		b = append(b, data...)
	}
	b = append(b, `,"duration":`...)
	b = strconv.AppendFloat(b, r.Duration, 'f', -1, 64)
	if r.Shared != nil {
		data, err := json.Marshal(r.Shared)
		if err != nil {
			return b, fmt.Errorf("shared: %w", err)
		}
		b = append(b, `,"shared":`...)
		b = append(b, data...)
	}
	if r.Resources != nil {
		data, err := json.Marshal(r.Resources)
		if err != nil {
			return b, fmt.Errorf("resources: %w", err)
		}
		b = append(b, `,"resources":`...)
		b = append(b, data...)
	}
	return append(b, '}'), nil
}

// appendRaw appends a raw JSON value, compacted onto one line if it spans
// several (a line is one message).
func appendRaw(b []byte, raw json.RawMessage) ([]byte, error) {
	if bytes.IndexByte(raw, '\n') < 0 && bytes.IndexByte(raw, '\r') < 0 {
		if !json.Valid(raw) {
			return b, fmt.Errorf("not valid JSON: %.80s", raw)
		}
		return append(b, raw...), nil
	}
	var buf bytes.Buffer
	if err := json.Compact(&buf, raw); err != nil {
		return b, err
	}
	return append(b, buf.Bytes()...), nil
}

// decodeHot decodes a task or a task result whose members it knows; ok is
// false for anything else, which encoding/json decodes. The Envelope's raw
// members alias line.
func decodeHot(line []byte) (env *Envelope, ok bool) {
	if !json.Valid(line) {
		return nil, false
	}
	env = &Envelope{}
	ok = true
	rawjson.Members(line, func(key, v []byte) bool {
		switch string(key) {
		case "id":
			env.ID, ok = str(v)
		case "tool":
			env.Tool, ok = str(v)
		case "status":
			env.Status, ok = str(v)
		case "args":
			env.Args = v
		case "result":
			env.Result = v
		case "context":
			env.Context = v
		case "roots":
			ok = json.Unmarshal(v, &env.Roots) == nil
		case "timeout":
			n, err := strconv.ParseInt(string(v), 10, 64)
			env.Timeout, ok = n, err == nil
		case "duration":
			f, err := strconv.ParseFloat(string(v), 64)
			env.Duration, ok = f, err == nil
		case "error":
			if string(v) != "null" {
				env.Error = &tool.Error{}
				ok = json.Unmarshal(v, env.Error) == nil
			}
		case "resources":
			if string(v) != "null" {
				env.Resources = &ResourceUsage{}
				ok = json.Unmarshal(v, env.Resources) == nil
			}
		default:
			ok = false
		}
		return ok
	})
	return env, ok && (env.Tool != "" || env.Status != "")
}

// str decodes a JSON string value; ok is false for anything else.
func str(v []byte) (string, bool) {
	if len(v) < 2 || v[0] != '"' {
		return "", false
	}
	if bytes.IndexByte(v, '\\') < 0 && utf8.Valid(v) {
		return string(v[1 : len(v)-1]), true
	}
	var s string
	return s, json.Unmarshal(v, &s) == nil
}
