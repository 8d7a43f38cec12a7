package wire

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"reflect"
	"strings"
	"testing"

	"github.com/barrhawk/barrhawk/internal/tool"
)

func TestRoundTrip(t *testing.T) {
	t.Parallel()
	msgs := []struct {
		msg  any
		kind Kind
	}{
		{Init{Type: TypeInit, ID: "igor-1", ToolBag: []string{"browser_*"}, Config: InitConfig{Timeout: 30000}}, KindInit},
		{Ready{Type: TypeReady, ID: "igor-1", ToolsLoaded: 45, PID: 12345, MemoryUsage: 52428800}, KindReady},
		{Task{ID: "t1", Tool: "hash_text", Args: json.RawMessage(`{"text":"a"}`), Timeout: 5000}, KindTask},
		{TaskResult{ID: "t1", Status: StatusSuccess, Result: json.RawMessage(`{"hash":"x"}`), Duration: 0.25}, KindResult},
		{TaskResult{ID: "t2", Status: StatusError, Error: &tool.Error{Code: "ELEMENT_NOT_FOUND", Message: "Element not found: #submit-btn"}, Duration: 5001}, KindResult},
		{Ping{Type: TypePing}, KindPing},
		{Pong{Type: TypePong, Status: "idle", ResourceUsage: ResourceUsage{Memory: 1, BrowserPages: 2, DBConnections: 1}}, KindPong},
		{Shutdown{Type: TypeShutdown, Graceful: true}, KindShutdown},
		{ShutdownAck{Type: TypeShutdownAck, CleanedUp: []string{"browser", "db_pg"}}, KindShutdownAck},
		{RequestRestart{Type: TypeRequestRestart, Reason: "Resource corruption detected"}, KindRequestRestart},
		{Fatal{Type: TypeFatal, Reason: "bad bag"}, KindFatal},
		{ToolsUpdate{Type: TypeToolsUpdate, ID: "u1", DynamicTools: []DynamicTool{{File: "a.ts", JS: "x", Hash: "h"}}}, KindToolsUpdate},
		{ToolsLoaded{Type: TypeToolsLoaded, ID: "u1", Loaded: []LoadedTool{{File: "a.ts", Name: "a", Schema: json.RawMessage(`{"type":"object"}`)}}}, KindToolsLoaded},
		{Cancel{Type: TypeCancel, ID: "t7"}, KindCancel},
	}
	var buf bytes.Buffer
	enc := NewEncoder(&buf)
	for _, m := range msgs {
		if err := enc.Encode(m.msg); err != nil {
			t.Fatal(err)
		}
	}
	if n := strings.Count(buf.String(), "\n"); n != len(msgs) {
		t.Fatalf("want %d lines, got %d", len(msgs), n)
	}
	dec := NewDecoder(&buf)
	for _, m := range msgs {
		env, err := dec.Decode()
		if err != nil {
			t.Fatal(err)
		}
		if env.Kind() != m.kind {
			t.Errorf("%T decoded as kind %d, want %d", m.msg, env.Kind(), m.kind)
		}
	}
	if _, err := dec.Decode(); !errors.Is(err, io.EOF) {
		t.Fatalf("want EOF, got %v", err)
	}
}

func TestSpecExamples(t *testing.T) {
	t.Parallel()
	// The literal messages of igor-spec.md decode to the right kinds and fields.
	task, err := Unmarshal([]byte(`{"id":"task-abc-123","tool":"browser_click","args":{"selector":"#submit-btn"},"timeout":5000}`))
	if err != nil || task.Kind() != KindTask || task.Timeout != 5000 || string(task.Args) != `{"selector":"#submit-btn"}` {
		t.Fatalf("task: %+v %v", task, err)
	}
	res, err := Unmarshal([]byte(`{"id":"task-abc-123","status":"error","error":{"message":"Element not found: #submit-btn","code":"ELEMENT_NOT_FOUND","stack":"Error: Element not found..."},"duration":5001}`))
	if err != nil || res.Kind() != KindResult || res.Error.Code != "ELEMENT_NOT_FOUND" || res.Duration != 5001 {
		t.Fatalf("result: %+v %v", res, err)
	}
	ack, err := Unmarshal([]byte(`{"type": "shutdown_ack", "cleanedUp": ["browser", "db_pg"]}`))
	if err != nil || ack.Kind() != KindShutdownAck || !reflect.DeepEqual(ack.CleanedUp, []string{"browser", "db_pg"}) {
		t.Fatalf("ack: %+v %v", ack, err)
	}
}

func TestDecoderSurvivesGarbage(t *testing.T) {
	t.Parallel()
	in := "not json\n\n{\"type\":\"ping\"}\n[1,2]\n{\"type\":\"pong\",\"status\":\"idle\",\"resourceUsage\":{\"memory\":5}}"
	dec := NewDecoder(strings.NewReader(in))
	var kinds []Kind
	var syntax int
	for {
		env, err := dec.Decode()
		if errors.Is(err, io.EOF) {
			break
		}
		var se *SyntaxError
		if errors.As(err, &se) {
			syntax++
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		kinds = append(kinds, env.Kind())
	}
	if syntax != 2 || !reflect.DeepEqual(kinds, []Kind{KindPing, KindPong}) {
		t.Fatalf("syntax errors %d, kinds %v", syntax, kinds)
	}
}

func TestLongLines(t *testing.T) {
	t.Parallel()
	big := strings.Repeat("x", 1<<20)
	var buf bytes.Buffer
	if err := NewEncoder(&buf).Encode(TaskResult{ID: "big", Status: StatusSuccess, Result: json.RawMessage(`"` + big + `"`)}); err != nil {
		t.Fatal(err)
	}
	buf.WriteString(`{"type":"ping"}` + "\n")
	dec := NewDecoder(&buf)
	env, err := dec.Decode()
	if err != nil || len(env.Result) != len(big)+2 {
		t.Fatalf("big result: %v", err)
	}
	if env, err := dec.Decode(); err != nil || env.Kind() != KindPing {
		t.Fatalf("after big line: %v %v", env, err)
	}
}

// TestDecoderMaxSkipsLongerLinesAndSaysWhose: a decoder with a limit reads
// a longer line through without keeping it, says which message it was,
// and reads on.
func TestDecoderMaxSkipsLongerLinesAndSaysWhose(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	enc := NewEncoder(&buf)
	for _, m := range []any{
		TaskResult{ID: "t7", Status: StatusSuccess, Result: json.RawMessage(`"` + strings.Repeat("x", 5000) + `"`)},
		ToolsLoaded{Type: TypeToolsLoaded, ID: "u3", Loaded: []LoadedTool{{File: "a.ts", Description: strings.Repeat("d", 5000)}}},
		TaskResult{ID: "t8", Status: StatusSuccess, Result: json.RawMessage(`"small"`)},
	} {
		if err := enc.Encode(m); err != nil {
			t.Fatal(err)
		}
	}
	dec := NewDecoderMax(&buf, 1000)
	for _, want := range []string{"t7", "u3"} {
		_, err := dec.Decode()
		var se *SyntaxError
		if !errors.As(err, &se) || !errors.Is(err, ErrTooLong) || se.MessageID() != want {
			t.Fatalf("want a too-long line from %s, got %v", want, err)
		}
	}
	if env, err := dec.Decode(); err != nil || env.ID != "t8" || string(env.Result) != `"small"` {
		t.Fatalf("after the long lines: %+v %v", env, err)
	}
}

func TestMessageID(t *testing.T) {
	t.Parallel()
	for line, want := range map[string]string{
		`{"id":"t1","status":"succ`:                   "t1",
		`{"type":"tools_loaded","id":"u2","loaded":[`: "u2",
		`{"type":"tools_loaded","id":"u2`:             "",
		`{"status":"success","result":"x","id":"t1"}`: "",
		`{"id":"t\"1"}`:                               "",
		`{"id":7}`:                                    "",
		`["id","t1"]`:                                 "",
		``:                                            "",
	} {
		if got := (&SyntaxError{Line: []byte(line)}).MessageID(); got != want {
			t.Errorf("MessageID(%s) = %q, want %q", line, got, want)
		}
	}
}

func TestEncodeRefusesAMessageOverMaxLine(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	err := NewEncoder(&buf).Encode(TaskResult{ID: "t1", Status: StatusSuccess, Result: json.RawMessage(`"` + strings.Repeat("x", MaxLine) + `"`)})
	if !errors.Is(err, ErrTooLong) || buf.Len() != 0 {
		t.Fatalf("want ErrTooLong and nothing written, got %v (%d bytes written)", err, buf.Len())
	}
}

func FuzzDecode(f *testing.F) {
	for _, s := range []string{
		`{"type":"init","id":"igor-1","toolBag":["browser_*"],"config":{"timeout":30000}}`,
		`{"id":"1","tool":"hash_text","args":{"text":"a"},"timeout":5}`,
		`{"id":"1","status":"success","result":{"a":1},"duration":1.5}`,
		`{"type":"pong","status":"busy","resourceUsage":{"memory":1}}`,
		`{"type":"shutdown_ack","cleanedUp":[]}`,
		"{\"id\":\"\\u0000\"}\n{}",
		`[`, ``, "\n\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		dec := NewDecoder(bytes.NewReader(data))
		for range 100 {
			env, err := dec.Decode()
			if errors.Is(err, io.EOF) {
				return
			}
			var se *SyntaxError
			if errors.As(err, &se) {
				continue
			}
			if err != nil {
				t.Fatalf("unexpected error type %T: %v", err, err)
			}
			_ = env.Kind()
			// Whatever decoded re-encodes, and decodes again to the same kind.
			var buf bytes.Buffer
			if err := NewEncoder(&buf).Encode(env); err != nil {
				t.Fatalf("re-encode: %v", err)
			}
			again, err := NewDecoder(&buf).Decode()
			if err != nil {
				t.Fatalf("decode of re-encoded %q: %v", buf.String(), err)
			}
			if again.Kind() != env.Kind() || again.ID != env.ID || again.Tool != env.Tool {
				t.Fatalf("round trip changed the message: %+v vs %+v", env, again)
			}
		}
	})
}

// FuzzHotDecode: the reflection-free reader of tasks and results agrees
// with encoding/json on every line it accepts.
func FuzzHotDecode(f *testing.F) {
	for _, s := range []string{
		`{"id":"t1","tool":"hash_text","args":{"text":"a\nb"},"timeout":5000}`,
		`{"id":"t1","status":"success","result":{"hash":"x"},"duration":0.25}`,
		`{"id":"t\u00322","status":"error","error":{"code":"TIMEOUT","message":"m"},"duration":5001,"resources":{"memory":3}}`,
		`{"id":"t1","tool":"x","context":{"squadId":"s"},"args":null}`,
		`{"id":"t1","tool":"x","timeout":1.5}`,
		`{"id":"t1","tool":"fs_read","args":{"path":"a"},"roots":["/w","/x\u00e9"]}`,
		`{"id":"t1","tool":"fs_read","roots":["/w"],"roots":null}`,
		`{"ID":"t1","tool":"x"}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		hot, ok := decodeHot(line)
		if !ok {
			return
		}
		var want Envelope
		if err := json.Unmarshal(line, &want); err != nil {
			t.Fatalf("decodeHot accepted what encoding/json refuses (%v): %s", err, line)
		}
		if !reflect.DeepEqual(*hot, want) {
			t.Fatalf("decodeHot %+v, encoding/json %+v, for %s", *hot, want, line)
		}
	})
}

func TestHotMessagesEncodeAsEncodingJSONDoes(t *testing.T) {
	t.Parallel()
	for _, m := range []any{
		Task{ID: "t1", Tool: "hash_text", Args: json.RawMessage("{\n  \"text\": \"a\"\n}"), Timeout: 5000},
		Task{ID: "t\"2", Tool: "x", Context: &tool.ExecContext{}},
		Task{ID: "t3", Tool: "fs_list", Args: json.RawMessage(`{"path":"."}`), Roots: []string{"/work", "/tmp/a \"b\""}},
		TaskResult{ID: "t1", Status: StatusSuccess, Result: json.RawMessage(`{"hash":"<x>"}`), Duration: 0.123},
		TaskResult{ID: "t2", Status: StatusError, Error: &tool.Error{Code: "TIMEOUT", Message: "m"}, Duration: 5001, Resources: &ResourceUsage{Memory: 1}},
	} {
		got, err := appendMessage(nil, m)
		if err != nil {
			t.Fatal(err)
		}
		want, _ := json.Marshal(m)
		var g, w any
		if json.Unmarshal(got, &g) != nil || json.Unmarshal(want, &w) != nil || !reflect.DeepEqual(g, w) {
			t.Errorf("wrote %s\nwant  %s", got, want)
		}
		if bytes.ContainsAny(got, "\n\r") {
			t.Errorf("a message spans lines: %q", got)
		}
	}
	if _, err := appendMessage(nil, Task{ID: "t", Tool: "x", Args: json.RawMessage(`{"a":`)}); err == nil {
		t.Error("invalid raw arguments must be refused, not sent")
	}
}

func TestMemoryLimitLine(t *testing.T) {
	t.Parallel()
	for _, ids := range [][]string{{"t1"}, {"t1", "t22"}, {}} {
		line := MemoryLimitLine(ids, "the worker process went over its 512 MiB memory limit")
		got, ok := ParseMemoryLimitLine(line)
		if !ok || !reflect.DeepEqual(got, ids) || !strings.HasPrefix(line, MemoryLimitExit) {
			t.Errorf("%q: parsed %q %v", line, got, ok)
		}
	}
	if _, ok := ParseMemoryLimitLine("fatal error: out of memory"); ok {
		t.Error("the Go runtime's line names no tasks")
	}
}

func TestTaskRootsRoundTrip(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	roots := []string{"/work", "/tmp/dir with \"quotes\""}
	if err := NewEncoder(&buf).Encode(Task{ID: "t1", Tool: "fs_read", Args: json.RawMessage(`{"path":"a"}`), Roots: roots}); err != nil {
		t.Fatal(err)
	}
	env, err := NewDecoder(&buf).Decode()
	if err != nil {
		t.Fatal(err)
	}
	if env.Kind() != KindTask || !reflect.DeepEqual(env.Roots, roots) {
		t.Fatalf("decoded kind %d roots %q, want a task with roots %q", env.Kind(), env.Roots, roots)
	}
}
