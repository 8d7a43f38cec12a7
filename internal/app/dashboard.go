package app

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"os"
	"sync"
	"time"

	"github.com/barrhawk/barrhawk/internal/admin"
	"github.com/barrhawk/barrhawk/internal/config"
	"github.com/barrhawk/barrhawk/internal/dashboard"
	"github.com/barrhawk/barrhawk/internal/doctor"
	"github.com/barrhawk/barrhawk/internal/front"
	"github.com/barrhawk/barrhawk/internal/queue"
	"github.com/barrhawk/barrhawk/internal/record"
)

// pruneEvery is how often the record drops what is past its retention
// (its bounds in calls and bytes hold after every flush).
const pruneEvery = time.Minute

// recording is the record of one serve: the recorder the front hands its
// calls to, and the watch on the queue that records finished jobs.
type recording struct {
	rec  *record.Recorder
	jobs *dashboard.JobWatch
}

// openedRecord is the record being opened: wait for it with the function.
type openedRecord func() (*record.Store, error)

// openRecord starts opening the record (dashboard.record) beside the rest
// of serve's start, which it would otherwise lengthen by milliseconds (a
// new file's tables); nil when the record is off.
func openRecord(cfg config.Config) openedRecord {
	if !cfg.Dashboard.Record {
		return nil
	}
	type opened struct {
		store *record.Store
		err   error
	}
	ch := make(chan opened, 1)
	go func() {
		s, err := record.Open(cfg.Dashboard.DB)
		ch <- opened{s, err}
	}()
	return sync.OnceValues(func() (*record.Store, error) {
		o := <-ch
		return o.store, o.err
	})
}

// startRecord starts recording the front's calls and the queue's jobs in
// the record opening; the returned function flushes and closes it. With
// the record off, or its file unusable (or dashboard.db malformed), it
// returns a zero recording: the server runs without one, saying why. A
// postgres:// record that does not answer yet is not an error: recording
// starts paused and resumes when the database answers.
func startRecord(ctx context.Context, cfg config.Config, opening openedRecord, d *doctor.Doctor, qs *queue.Service, srv *front.Server, log *slog.Logger) (recording, func()) {
	if opening == nil {
		return recording{}, func() {}
	}
	store, err := opening()
	if err != nil {
		log.Warn("the record of calls and test runs is off for this run", "err", err)
		return recording{}, func() {}
	}
	rec := record.NewRecorder(store, record.RecorderOptions{Log: log, KindOf: func(name string) string {
		if t, ok := d.Registry().Get(name); ok {
			return record.KindOf(&t.Def)
		}
		return ""
	},
		Bounds: record.Bounds{MaxCalls: cfg.Dashboard.MaxCalls, MaxBytes: cfg.Dashboard.MaxBytes},
		// A full disk, or a shared record's database away, pauses
		// recording with one event (and its log line); calls go on
		// being answered, and wait in a bounded buffer (the dashboard's
		// GET /api/overview shows it).
		Paused: func(err error, lost int) {
			if err != nil {
				d.Events().Emit(doctor.Event{Type: doctor.EventRecordPaused, Reason: err.Error()})
				return
			}
			d.Events().Emit(doctor.Event{Type: doctor.EventRecordResumed, Reason: fmt.Sprintf("%d calls were not recorded meanwhile", lost)})
		},
	})
	srv.Record(rec)
	d.ReportRecording(func() any { return rec.Status() })
	// Everything that writes to the store stops before it closes: serve's
	// context ends only at the end, and the store closes with the function
	// returned here, on every way out of Serve.
	rctx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	wg.Go(func() { rec.Run(rctx) }) // its last flush is before the store closes
	jobs := dashboard.NewJobWatch(qs, store, log)
	wg.Go(func() { jobs.Run(rctx) })
	wg.Go(func() {
		t := time.NewTicker(pruneEvery)
		defer t.Stop()
		for {
			// While recording is paused the recorder has said why.
			if err := store.Prune(rctx, cfg.Dashboard.Retention, cfg.Dashboard.MaxCalls); err != nil && rctx.Err() == nil && !rec.Status().Paused {
				log.Warn("pruning the record", "err", err)
			}
			select {
			case <-rctx.Done():
				return
			case <-t.C:
			}
		}
	})
	return recording{rec: rec, jobs: jobs}, func() {
		cancel()
		wg.Wait()
		if err := store.Close(); err != nil {
			log.Warn("closing the record", "err", err)
		}
	}
}

// serveDashboard serves the web UI on addr and prints the URL that opens
// it, token included, on stderr.
func serveDashboard(ctx context.Context, opts ServeOptions, addr string, d *doctor.Doctor, r recording, log *slog.Logger) (net.Addr, <-chan error, error) {
	if r.rec == nil {
		return nil, nil, errors.New("the dashboard shows the record, and the record is off or could not open (dashboard.record, dashboard.db): see the warning above")
	}
	token := opts.Config.Dashboard.Token
	if token == "" {
		var err error
		if token, err = admin.NewToken(); err != nil {
			return nil, nil, err
		}
	}
	cfg := opts.Config
	srv, err := dashboard.New(dashboard.Options{Doctor: d, Recorder: r.rec, Jobs: r.jobs, Token: token, Log: log,
		EvidenceDirs: []string{cfg.Tools.ScreenshotDir, cfg.Workers.LogDir, cfg.Workers.ArtifactDir, cfg.Spawn.Dir, cfg.Tools.FSRoot}})
	if err != nil {
		return nil, nil, err
	}
	a, errs, err := srv.Serve(ctx, addr, opts.DashboardAllowRemote)
	if err != nil {
		return nil, nil, err
	}
	url := dashboard.URL(a, token)
	fmt.Fprintf(os.Stderr, "BarrHawk dashboard: %s\n", url)
	log.Info("dashboard", "addr", "http://"+a.String()+"/")
	return a, errs, nil
}
