package doctor

import (
	"context"
	"encoding/json"
	"sync"
	"testing"
	"time"

	"github.com/barrhawk/barrhawk/internal/config"
	"github.com/barrhawk/barrhawk/internal/tool"
)

func callIn(t *testing.T, p *Pool, lane *Lane, name, args string) (string, *tool.Error) {
	t.Helper()
	_, igor, err := p.CallWhere(withLane(context.Background(), lane), name, json.RawMessage(args), 10*time.Second, 1)
	return igor, err
}

// Lanes keep their Igors apart: a lane's calls run only on its Igors,
// which load only its tool bag, and a lane short of a slot takes one from
// an idle Igor of another lane.
func TestLanesKeepIgorsApart(t *testing.T) {
	t.Parallel()
	p := newPool(t, nil, func(c *config.Igors) { c.Strategy = StrategySpecialized; c.MaxWorkers = 2 })
	text := &Lane{Name: "domain:text", ToolBag: []string{"hash_text", "wait_ms"}}
	general := &Lane{Name: "domain:general", ToolBag: []string{"timestamp_now", "wait_ms"}}

	a, err := callIn(t, p, text, "hash_text", `{"text":"a"}`)
	if err != nil {
		t.Fatal(err)
	}
	b, err := callIn(t, p, general, "timestamp_now", `{}`)
	if err != nil {
		t.Fatal(err)
	}
	if a == b {
		t.Fatalf("both lanes ran on %s", a)
	}
	lanesOf := map[string]string{}
	for _, ig := range p.Status().Igors {
		lanesOf[ig.ID] = ig.Lane
		if ig.ToolsLoaded != 2 {
			t.Errorf("%s (lane %s) loaded %d tools, want its lane's 2", ig.ID, ig.Lane, ig.ToolsLoaded)
		}
	}
	if lanesOf[a] != text.Name || lanesOf[b] != general.Name {
		t.Fatalf("lanes: %v; want %s on %s and %s on %s", lanesOf, a, text.Name, b, general.Name)
	}
	// A busy lane does not borrow another lane's Igor: calls queue for
	// their own (one here, as both slots are taken and neither is idle).
	var wg sync.WaitGroup
	used := sync.Map{}
	for range 4 {
		wg.Go(func() {
			igor, err := callIn(t, p, text, "wait_ms", `{"ms":100}`)
			if err != nil {
				t.Error(err)
			}
			used.Store(igor, true)
		})
	}
	wg.Wait()
	used.Range(func(k, _ any) bool {
		if k.(string) != a && lanesOf[k.(string)] != text.Name {
			t.Errorf("a text call ran on %s of lane %s", k, lanesOf[k.(string)])
		}
		return true
	})
	// A third lane with every slot taken reclaims the idle Igor used
	// longest ago.
	third := &Lane{Name: "domain:third", ToolBag: []string{"hash_text"}}
	c, err := callIn(t, p, third, "hash_text", `{"text":"c"}`)
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, ig := range p.Status().Igors {
		if ig.ID == c && ig.Lane == third.Name && ig.Status != "stopping" {
			found = true
		}
	}
	if !found {
		t.Fatalf("third lane's call ran on %s; status %+v", c, p.Status().Igors)
	}
	// A tool outside the lane's bag is not there.
	if _, err := callIn(t, p, third, "timestamp_now", `{}`); err == nil || err.Code != tool.CodeUnknownTool {
		t.Fatalf("uuid_generate in lane third: %v, want UNKNOWN_TOOL", err)
	}
}

// A squad lane is capped at its size, and its Igors stop with StopLane.
func TestSquadLaneSizeAndStop(t *testing.T) {
	t.Parallel()
	p := newPool(t, nil, func(c *config.Igors) { c.Strategy = StrategySquad; c.MaxWorkers = 4 })
	sq := squadLane("team", 2, nil)
	var wg sync.WaitGroup
	for range 6 {
		wg.Go(func() {
			if _, err := callIn(t, p, sq, "wait_ms", `{"ms":150}`); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	n := 0
	for _, ig := range p.Status().Igors {
		if ig.Lane == sq.Name {
			n++
		}
	}
	if n != 2 {
		t.Fatalf("squad of size 2 had %d Igors: %+v", n, p.Status().Igors)
	}
	p.StopLane(sq.Name)
	deadline := time.Now().Add(5 * time.Second)
	for {
		left := 0
		for _, ig := range p.Status().Igors {
			if ig.Lane == sq.Name {
				left++
			}
		}
		if left == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("squad Igors still up after StopLane: %+v", p.Status().Igors)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// The swarm strategy keeps every slot warm, even with no call.
func TestSwarmKeepsIgorsWarm(t *testing.T) {
	t.Parallel()
	p := newPool(t, nil, func(c *config.Igors) {
		c.Strategy = StrategySwarm
		c.MaxWorkers = 3
		c.IdleTimeout = 50 * time.Millisecond
	})
	deadline := time.Now().Add(10 * time.Second)
	for {
		st := p.Status()
		if st.Live == 3 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("swarm: %d of 3 Igors ready: %+v", st.Live, st.Igors)
		}
		time.Sleep(20 * time.Millisecond)
	}
	time.Sleep(300 * time.Millisecond) // well past the idle timeout
	if st := p.Status(); st.Live != 3 {
		t.Fatalf("swarm stopped idle Igors: %+v", st.Igors)
	}
}
