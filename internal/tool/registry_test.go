package tool

import (
	"context"
	"strings"
	"sync"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
)

func mk(name string) Tool {
	return Tool{
		Def: Def{Name: name, Description: "d", Group: "G", Category: CategoryUtility, Input: &jsonschema.Schema{Type: "object"}, RequiresWorker: true},
		Run: func(context.Context, *Call) (any, error) { return name, nil },
	}
}

func names(r *Registry) string {
	var out []string
	for _, t := range r.List() {
		out = append(out, t.Name)
	}
	return strings.Join(out, ",")
}

func TestRegistryAddRemoveFilter(t *testing.T) {
	t.Parallel()
	r := NewRegistry(mk("browser_click"), mk("browser_type"), mk("hash_text"))
	if err := r.Add(mk("hash_text")); err == nil || !strings.Contains(err.Error(), "twice") {
		t.Fatalf("duplicate: %v", err)
	}
	bad := mk("Bad-Name")
	if err := r.Add(bad); err == nil || !strings.Contains(err.Error(), "must match") {
		t.Fatalf("bad name: %v", err)
	}
	f, err := r.Filter([]string{"browser_*"})
	if err != nil || names(f) != "browser_click,browser_type" {
		t.Fatalf("filter: %s %v", names(f), err)
	}
	if _, err := r.Filter([]string{"browser_["}); err == nil {
		t.Fatal("a malformed pattern is not an error")
	}
	if all, _ := r.Filter(nil); all.Len() != 3 {
		t.Fatal("no pattern keeps every tool")
	}
	if !r.Remove("browser_type") || r.Remove("browser_type") || names(r) != "browser_click,hash_text" {
		t.Fatalf("remove: %s", names(r))
	}
}

func TestRegistrySwapIsAtomic(t *testing.T) {
	t.Parallel()
	r := NewRegistry(mk("keep"), mk("dyn_a"))
	var wg sync.WaitGroup
	stop := make(chan struct{})
	missing := 0
	wg.Go(func() {
		for {
			select {
			case <-stop:
				return
			default:
			}
			if _, ok := r.Get("dyn_a"); !ok {
				missing++
			}
		}
	})
	for range 2000 {
		if err := r.Swap([]string{"dyn_a"}, []Tool{mk("dyn_a")}); err != nil {
			t.Fatal(err)
		}
	}
	close(stop)
	wg.Wait()
	if missing > 0 {
		t.Fatalf("dyn_a was missing %d times during swaps", missing)
	}
	if err := r.Swap(nil, []Tool{mk("keep")}); err == nil {
		t.Fatal("swapping in a name that is not removed is not an error")
	}
}

func TestMaxRetries(t *testing.T) {
	t.Parallel()
	for retries, want := range map[int]int{-1: 0, 0: 1, 3: 3} {
		d := Def{Retries: retries}
		if got := d.MaxRetries(); got != want {
			t.Errorf("Retries %d: MaxRetries %d, want %d", retries, got, want)
		}
	}
}
