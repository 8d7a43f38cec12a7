package squad

import (
	"encoding/json"
	"strings"
	"testing"
	"time"
)

func TestSquads(t *testing.T) {
	t.Parallel()
	now := time.Unix(1000, 0)
	r := &Registry{Idle: time.Minute, Now: func() time.Time { return now }}
	sq, err := r.Create("alpha", 1, []string{"hash_*"})
	if err != nil {
		t.Fatal(err)
	}
	for _, bad := range []string{"alpha", "bad name", ""} {
		if _, err := r.Create(bad, 1, nil); err == nil {
			t.Errorf("Create(%q) must fail", bad)
		}
	}
	if !sq.Allows("hash_text") || sq.Allows("wait_ms") {
		t.Error("tool bag")
	}
	sq.Set("k", json.RawMessage(`{"a":1}`))
	if v := sq.Vars()["k"].(map[string]any)["a"]; v != 1.0 {
		t.Errorf("Vars: %v", sq.Vars())
	}
	release, err := sq.Acquire(nil)
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	close(done)
	if _, err := sq.Acquire(done); err == nil {
		t.Error("a full squad must make a cancelled caller give up")
	}
	release()
	if _, err := r.Get("beta"); err == nil || !strings.Contains(err.Error(), "alpha") {
		t.Errorf("Get of a missing squad names the others: %v", err)
	}
	now = now.Add(2 * time.Hour)
	if st := r.Status(); len(st) != 0 {
		t.Errorf("an idle squad must expire: %v", st)
	}
}
