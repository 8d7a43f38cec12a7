package queue

import (
	"context"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/barrhawk/barrhawk/internal/jobs"
)

// BenchmarkSubmitToRunning: from Submit to the worker starting the job, on
// SQLite, one job at a time.
func BenchmarkSubmitToRunning(b *testing.B) {
	ctx := context.Background()
	started := make(chan time.Time, 1)
	q, err := Open(ctx, filepath.Join(b.TempDir(), "q.db"), Options{Workers: 1, ID: "bench", Run: func(context.Context, int64, jobs.CommandJob, func(*jobs.Outcome)) (*jobs.Outcome, error) {
		started <- time.Now()
		return &jobs.Outcome{Status: "succeeded"}, nil
	}})
	if err != nil {
		b.Fatal(err)
	}
	defer q.Close()
	if err := q.Start(ctx); err != nil {
		b.Fatal(err)
	}
	defer q.Stop(ctx)
	var total time.Duration
	for b.Loop() {
		t0 := time.Now()
		if _, err := q.Submit(ctx, jobs.CommandJob{Repo: "/r", Build: []string{"true"}}); err != nil {
			b.Fatal(err)
		}
		total += (<-started).Sub(t0)
	}
	b.ReportMetric(float64(total.Microseconds())/float64(b.N)/1000, "ms/submit-to-running")
}

// BenchmarkNoopThroughput: jobs that do nothing, 4 workers, SQLite: the
// queue's own cost per job.
func BenchmarkNoopThroughput(b *testing.B) {
	ctx := context.Background()
	var done atomic.Int64
	q, err := Open(ctx, filepath.Join(b.TempDir(), "q.db"), Options{Workers: 4, ID: "bench", Run: func(context.Context, int64, jobs.CommandJob, func(*jobs.Outcome)) (*jobs.Outcome, error) {
		done.Add(1)
		return &jobs.Outcome{Status: "succeeded"}, nil
	}})
	if err != nil {
		b.Fatal(err)
	}
	defer q.Close()
	if err := q.Start(ctx); err != nil {
		b.Fatal(err)
	}
	defer q.Stop(ctx)
	t0 := time.Now()
	for range b.N {
		if _, err := q.Submit(ctx, jobs.CommandJob{Repo: "/r", Build: []string{"true"}}); err != nil {
			b.Fatal(err)
		}
	}
	for done.Load() < int64(b.N) {
		time.Sleep(time.Millisecond)
	}
	b.ReportMetric(float64(b.N)/time.Since(t0).Seconds(), "jobs/s")
}
