package queue

import (
	"context"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/barrhawk/barrhawk/internal/jobs"
)

// A job whose worker is gone, or that runs past its own timeout, goes back
// to the queue and runs again elsewhere; a job of a live worker within its
// timeout is left alone.
func TestHandBack(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "queue.db")
	// The "dead" worker takes both jobs and never finishes them (as if
	// killed); with no free slot it takes nothing handed back.
	release := make(chan struct{})
	started := make(chan int64, 4)
	stuck, err := Open(ctx, path, Options{Workers: 2, ID: "host-1-1-1", Run: func(ctx context.Context, id int64, _ jobs.CommandJob, _ func(*jobs.Outcome)) (*jobs.Outcome, error) {
		started <- id
		<-release
		return &jobs.Outcome{Status: "succeeded"}, nil
	}})
	if err != nil {
		t.Fatal(err)
	}
	defer stuck.Close()
	if err := stuck.Start(ctx); err != nil {
		t.Fatal(err)
	}
	defer func() { close(release); stuck.Stop(ctx) }()
	client, err := Open(ctx, path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer client.Close()
	long, _ := client.Submit(ctx, jobs.CommandJob{Repo: "/r", Build: []string{"true"}, Timeout: time.Hour})
	short, _ := client.Submit(ctx, jobs.CommandJob{Repo: "/r", Build: []string{"true"}, Timeout: time.Millisecond})
	for range 2 {
		<-started
	}
	// The worker lives and the long job is within its timeout: nothing.
	if ids, err := HandBack(ctx, client, Recovery{Gone: func(string) bool { return false }, Grace: time.Hour}); err != nil || len(ids.HandedBack)+len(ids.Ended)+len(ids.Agents) != 0 {
		t.Errorf("handed back %v, %v", ids, err)
	}
	// The short job is past its timeout plus grace: back it goes.
	time.Sleep(20 * time.Millisecond)
	done, err := HandBack(ctx, client, Recovery{Grace: 10 * time.Millisecond})
	ids := done.HandedBack
	if err != nil || !slices.Equal(ids, []int64{short}) {
		t.Fatalf("overdue: handed back %v, %v", ids, err)
	}
	in, _ := client.Get(ctx, short)
	if in.State != "available" || len(in.Errors) != 1 || !strings.Contains(in.Errors[0], "past its timeout") {
		t.Errorf("the overdue job: %s %v", in.State, in.Errors)
	}
	// Its worker is gone: the long job goes back too.
	done, err = HandBack(ctx, client, Recovery{Gone: func(w string) bool { return w == "host-1-1-1" }})
	ids = done.HandedBack
	if err != nil || !slices.Contains(ids, long) {
		t.Fatalf("gone: handed back %v, %v", ids, err)
	}
	// Another worker runs both to the end; each ran there once.
	ran := make(chan int64, 4)
	other, err := Open(ctx, path, Options{Workers: 2, ID: "host-2-1-1", Run: func(_ context.Context, id int64, _ jobs.CommandJob, _ func(*jobs.Outcome)) (*jobs.Outcome, error) {
		ran <- id
		return &jobs.Outcome{Status: "succeeded"}, nil
	}})
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	if err := other.Start(ctx); err != nil {
		t.Fatal(err)
	}
	defer other.Stop(ctx)
	for _, id := range []int64{long, short} {
		in := wait(t, client, id)
		if in.State != "completed" || LastWorker(in) != "host-2-1-1" || in.AttemptedBy[0] != "host-1-1-1" {
			t.Errorf("job %d: %s by %v", id, in.State, in.AttemptedBy)
		}
	}
	if got := []int64{<-ran, <-ran}; !slices.Contains(got, long) || !slices.Contains(got, short) || len(ran) != 0 {
		t.Errorf("ran %v", got)
	}
}
