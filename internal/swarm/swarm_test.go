package swarm

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/barrhawk/barrhawk/internal/tool"
)

// fakeCaller stands in for the Doctor: "echo" returns its args, "double"
// doubles args.n, "fail" fails, "flaky" fails on its first call, "slow"
// waits for its context.
func fakeCaller(order *[]string, mu *sync.Mutex) Caller {
	var flaky atomic.Int32
	return func(ctx context.Context, name string, args json.RawMessage) (json.RawMessage, string, *tool.Error) {
		var in map[string]any
		_ = json.Unmarshal(args, &in)
		if order != nil {
			mu.Lock()
			*order = append(*order, name+":"+string(args))
			mu.Unlock()
		}
		switch name {
		case "echo":
			return args, "igor-1", nil
		case "double":
			n, _ := in["n"].(float64)
			b, _ := json.Marshal(map[string]any{"n": n * 2})
			return b, "igor-2", nil
		case "fail":
			return nil, "igor-1", tool.Errorf(tool.CodeToolError, "failed on purpose")
		case "flaky":
			if flaky.Add(1) == 1 {
				return nil, "igor-1", tool.Errorf(tool.CodeToolError, "first time fails")
			}
			return json.RawMessage(`"ok"`), "igor-2", nil
		case "slow":
			<-ctx.Done()
			return nil, "igor-3", tool.Errorf(tool.CodeCancelled, "cancelled")
		}
		return nil, "", tool.Errorf(tool.CodeUnknownTool, "no tool %s", name)
	}
}

func spec(t *testing.T, s string) Spec {
	t.Helper()
	var sp Spec
	if err := json.Unmarshal([]byte(s), &sp); err != nil {
		t.Fatal(err)
	}
	return sp
}

func status(rep *Report) map[string]string {
	out := map[string]string{}
	for _, o := range rep.Subtasks {
		out[o.ID] = o.Status
	}
	return out
}

func TestPipelinePassesResultsOn(t *testing.T) {
	t.Parallel()
	var order []string
	var mu sync.Mutex
	rep, err := Run(context.Background(), spec(t, `{"strategy":"pipeline","subtasks":[
		{"id":"a","tool":"double","args":{"n":2}},
		{"id":"b","tool":"double","args":{"n":"${a.n}"}},
		{"id":"c","tool":"echo","args":{"from":"${b}","first":"${a.n}","text":"not a ${ref}"}}]}`), fakeCaller(&order, &mu))
	if err != nil {
		t.Fatal(err)
	}
	if rep.Status != Succeeded || string(rep.Result) != `{"first":4,"from":{"n":8},"text":"not a ${ref}"}` {
		t.Errorf("pipeline: %s %s", rep.Status, rep.Result)
	}
	if strings.Join(order, " ") != `double:{"n":2} double:{"n":4} echo:{"first":4,"from":{"n":8},"text":"not a ${ref}"}` {
		t.Errorf("order: %v", order)
	}
}

func TestAbortAndContinueDiffer(t *testing.T) {
	t.Parallel()
	body := `"subtasks":[{"id":"bad","tool":"fail"},{"id":"after","tool":"echo","args":{"x":"${bad}"}},{"id":"slow","tool":"slow"},{"id":"free","tool":"echo","args":{"y":1}}]`
	rep, err := Run(context.Background(), spec(t, `{"onPartialFailure":"abort",`+body+`}`), fakeCaller(nil, nil))
	if err != nil {
		t.Fatal(err)
	}
	if st := status(rep); st["bad"] != Failed || st["after"] != Skipped && st["after"] != Cancelled || st["slow"] != Cancelled {
		t.Errorf("abort: %v", st)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	rep, err = Run(ctx, spec(t, `{"onPartialFailure":"continue",`+body+`}`), fakeCaller(nil, nil))
	if err != nil {
		t.Fatal(err)
	}
	if st := status(rep); st["bad"] != Failed || st["after"] != Skipped || st["free"] != Succeeded || st["slow"] != Cancelled || rep.Status != "partial" {
		t.Errorf("continue: %v %s", st, rep.Status)
	}
}

func TestRetryTriesOnceMore(t *testing.T) {
	t.Parallel()
	rep, err := Run(context.Background(), spec(t, `{"onPartialFailure":"retry","subtasks":[{"id":"f","tool":"flaky"}]}`), fakeCaller(nil, nil))
	if err != nil || rep.Status != Succeeded || rep.Subtasks[0].Attempts != 2 || rep.Subtasks[0].Igor != "igor-2" {
		t.Errorf("retry: %+v %v", rep, err)
	}
}

func TestMapReduce(t *testing.T) {
	t.Parallel()
	items := `[1,2,3,4]`
	for reducer, want := range map[string]string{
		"sum":    `20`,
		"count":  `4`,
		"concat": `[{"n":2},{"n":4},{"n":6},{"n":8}]`,
		"merge":  `{"n":8}`,
	} {
		rep, err := Run(context.Background(), spec(t, `{"strategy":"map-reduce","map":{"tool":"double","items":`+items+`,"as":"n"},"reduce":{"reducer":"`+reducer+`"}}`), func(ctx context.Context, name string, args json.RawMessage) (json.RawMessage, string, *tool.Error) {
			res, igor, terr := fakeCaller(nil, nil)(ctx, name, args)
			if reducer == "sum" && terr == nil {
				var v map[string]float64
				_ = json.Unmarshal(res, &v)
				res, _ = json.Marshal(v["n"])
			}
			return res, igor, terr
		})
		if err != nil || rep.Status != Succeeded || string(rep.Result) != want {
			t.Errorf("%s: %v %s %s", reducer, err, rep.Status, rep.Result)
		}
	}
	rep, err := Run(context.Background(), spec(t, `{"strategy":"map-reduce","map":{"tool":"double","items":[5],"as":"n","args":{"k":1}},"reduce":{"tool":"echo","as":"all","args":{"title":"report"}}}`), fakeCaller(nil, nil))
	if err != nil || string(rep.Result) != `{"all":[{"n":10}],"title":"report"}` || rep.Subtasks[len(rep.Subtasks)-1].ID != "reduce" {
		t.Errorf("reduce tool: %v %s", err, rep.Result)
	}
}

func TestBadSpecsAreRefused(t *testing.T) {
	t.Parallel()
	for s, want := range map[string]string{
		`{"subtasks":[]}`: "at least one subtask",
		`{"subtasks":[{"id":"a","tool":"echo"},{"id":"a","tool":"echo"}]}`:                                         "used twice",
		`{"subtasks":[{"id":"a","tool":"echo","dependsOn":["zz"]}]}`:                                               `"zz", which is not a subtask`,
		`{"subtasks":[{"id":"a","tool":"echo","args":{"x":"${b}"}},{"id":"b","tool":"echo","args":{"y":"${a}"}}]}`: "cycle",
		`{"strategy":"fanout","subtasks":[{"id":"a","tool":"echo"}]}`:                                              "not a strategy",
		`{"strategy":"map-reduce"}`: "map-reduce needs",
		`{"strategy":"map-reduce","map":{"tool":"echo","items":[1]},"reduce":{"reducer":"avg"}}`: "not a reducer",
		`{"subtasks":[{"id":"a"}]}`: "has no tool",
	} {
		_, err := Run(context.Background(), spec(t, s), fakeCaller(nil, nil))
		var te *tool.Error
		if !errors.As(err, &te) || te.Code != tool.CodeInvalidArgs || !strings.Contains(te.Message, want) {
			t.Errorf("%s: want INVALID_ARGS mentioning %q, got %v", s, want, err)
		}
	}
	rep, err := Run(context.Background(), spec(t, `{"strategy":"pipeline","subtasks":[{"id":"a","tool":"echo","args":{"v":1}},{"id":"b","tool":"echo","args":{"x":"${a.nope}"}}]}`), fakeCaller(nil, nil))
	if err != nil || status(rep)["b"] != Failed || !strings.Contains(rep.Subtasks[1].Error.Message, `no field "nope"`) {
		t.Errorf("a reference to a missing field: %v %+v", err, rep)
	}
}

func BenchmarkSwarm100(b *testing.B) {
	var sb strings.Builder
	sb.WriteString(`{"subtasks":[`)
	for i := range 100 {
		if i > 0 {
			sb.WriteByte(',')
		}
		sb.WriteString(`{"id":"t` + string(rune('a'+i%26)) + strings.Repeat("x", i/26) + `","tool":"echo","args":{"i":1}}`)
	}
	sb.WriteString(`]}`)
	var sp Spec
	_ = json.Unmarshal([]byte(sb.String()), &sp)
	call := fakeCaller(nil, nil)
	for b.Loop() {
		if rep, err := Run(context.Background(), sp, call); err != nil || rep.Status != Succeeded {
			b.Fatal(err)
		}
	}
}
