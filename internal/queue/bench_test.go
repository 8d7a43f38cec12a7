package queue

import (
	"context"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/barrhawk/barrhawk/internal/jobs"
	"github.com/barrhawk/barrhawk/internal/testsupport/testsrv"
)

// BenchmarkSubmitToRunning: from Submit to the worker starting the job, on
// SQLite, one job at a time.
func BenchmarkSubmitToRunning(b *testing.B) {
	ctx := context.Background()
	started := make(chan time.Time, 1)
	q := working(b, filepath.Join(b.TempDir(), "q.db"), Options{Workers: 1, ID: "bench", Run: func(context.Context, int64, jobs.CommandJob, func(*jobs.Outcome)) (*jobs.Outcome, error) {
		started <- time.Now()
		return &jobs.Outcome{Status: "succeeded"}, nil
	}})
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
	q := working(b, filepath.Join(b.TempDir(), "q.db"), Options{Workers: 4, ID: "bench", Run: func(context.Context, int64, jobs.CommandJob, func(*jobs.Outcome)) (*jobs.Outcome, error) {
		done.Add(1)
		return &jobs.Outcome{Status: "succeeded"}, nil
	}})
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

// BenchmarkSubmitToComplete: 1,000 trivial jobs submitted at once, 4
// workers, until the queue holds every one completed: the queue's
// throughput with each job's end recorded before its worker moves on
// (Ending), on SQLite and on PostgreSQL.
func BenchmarkSubmitToComplete(b *testing.B) {
	b.Run("SQLite", func(b *testing.B) { benchSubmitToComplete(b, filepath.Join(b.TempDir(), "q.db")) })
	b.Run("PostgreSQL", func(b *testing.B) {
		pg, err := testsrv.StartPostgres()
		if err != nil {
			b.Fatal(err)
		}
		defer pg.Close()
		benchSubmitToComplete(b, pg.URL)
	})
}

func benchSubmitToComplete(b *testing.B, dsn string) {
	const n = 1000
	ctx := context.Background()
	q := working(b, dsn, Options{Workers: 4, ID: "bench", Journal: b.TempDir(), Run: func(context.Context, int64, jobs.CommandJob, func(*jobs.Outcome)) (*jobs.Outcome, error) {
		return &jobs.Outcome{Status: "succeeded"}, nil
	}})
	var total time.Duration
	for b.Loop() {
		t0 := time.Now()
		ids := make([]int64, 0, n)
		for range n {
			id, err := q.Submit(ctx, jobs.CommandJob{Repo: "/r", Build: []string{"true"}})
			if err != nil {
				b.Fatal(err)
			}
			ids = append(ids, id)
		}
		// The last submitted is among the last to run; then every one.
		for _, id := range []int64{ids[n-1], ids[0]} {
			for {
				in, err := q.Get(ctx, id)
				if err != nil {
					b.Fatal(err)
				}
				if in.State == "completed" {
					break
				}
				time.Sleep(2 * time.Millisecond)
			}
		}
		list, err := q.List(ctx, n)
		if err != nil {
			b.Fatal(err)
		}
		for _, in := range list {
			for in.State != "completed" {
				time.Sleep(2 * time.Millisecond)
				got, err := q.Get(ctx, in.ID)
				if err != nil {
					b.Fatal(err)
				}
				in = *got
			}
		}
		total += time.Since(t0)
	}
	b.ReportMetric(float64(n*b.N)/total.Seconds(), "jobs/s")
	b.ReportMetric(0, "ns/op")
}

// working is a queue on dsn that works jobs as o says, stopped and closed
// when tb ends.
func working(tb testing.TB, dsn string, o Options) Queue {
	tb.Helper()
	ctx := context.Background()
	q, err := Open(ctx, dsn, o)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { q.Close() })
	if err := q.Start(ctx); err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { q.Stop(ctx) })
	return q
}
