package dashboard

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/barrhawk/barrhawk/internal/doctor"
	"github.com/barrhawk/barrhawk/internal/fspath"
	"github.com/barrhawk/barrhawk/internal/record"
	"github.com/barrhawk/barrhawk/internal/tool"
)

// maxEvidence bounds one evidence file served.
const maxEvidence = 64 << 20

func (s *Server) routes() {
	m := s.mux
	m.HandleFunc("GET /api/events", s.events)
	m.HandleFunc("GET /api/events/recent", s.recent)
	m.HandleFunc("GET /api/overview", s.overview)
	m.HandleFunc("GET /api/igors", s.igors)
	m.HandleFunc("GET /api/calls", s.calls)
	m.HandleFunc("GET /api/calls/{id}", s.call)
	m.HandleFunc("GET /api/tools", s.tools)
	m.HandleFunc("POST /api/rollback", s.rollback)
	m.HandleFunc("GET /api/jobs", s.jobs)
	m.HandleFunc("GET /api/jobs/{id}/log", s.jobLog)
	m.HandleFunc("GET /api/runs", s.runs)
	m.HandleFunc("GET /api/runs/{id}", s.run)
	m.HandleFunc("GET /api/runs/{id}/junit", s.junit)
	m.HandleFunc("GET /api/runs/{id}/report.html", s.report)
	m.HandleFunc("GET /api/tests/history", s.history)
	m.HandleFunc("GET /api/evidence/{id}", s.evidence)
	m.HandleFunc("GET /api/stats", s.stats)
	m.HandleFunc("GET /api/", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusNotFound, map[string]string{"error": fmt.Sprintf("no such endpoint: %s %s", r.Method, r.URL.Path)})
	})
}

func (s *Server) store() *record.Store { return s.o.Recorder.Store() }

// fail answers an error: 404 for what the record lacks, 400 for bad input,
// 500 otherwise.
func fail(w http.ResponseWriter, err error) {
	status := http.StatusInternalServerError
	var bad badRequest
	switch {
	case errors.Is(err, record.ErrNotFound):
		status = http.StatusNotFound
	case errors.Is(err, record.ErrNotReady):
		// The shared record's database is away: recording is paused
		// (GET /api/overview says so), the rest of the page works.
		status = http.StatusServiceUnavailable
	case errors.As(err, &bad):
		status = http.StatusBadRequest
	}
	writeJSON(w, status, map[string]string{"error": err.Error()})
}

type badRequest struct{ msg string }

func (b badRequest) Error() string { return b.msg }

// intParam reads a non-negative integer query parameter (0 when absent).
func intParam(r *http.Request, name string) (int64, error) {
	v := r.URL.Query().Get(name)
	if v == "" {
		return 0, nil
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil || n < 0 {
		return 0, badRequest{fmt.Sprintf("parameter %s=%q: want a whole number of 0 or more", name, v)}
	}
	return n, nil
}

// page reads the paging parameters before (an id) and limit.
func page(r *http.Request) (before int64, limit int, err error) {
	if before, err = intParam(r, "before"); err != nil {
		return 0, 0, err
	}
	n, err := intParam(r, "limit")
	return before, int(n), err
}

func pathID(r *http.Request) (int64, error) {
	v := r.PathValue("id")
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil || n <= 0 {
		return 0, badRequest{fmt.Sprintf("id %q: want a whole number of 1 or more", v)}
	}
	return n, nil
}

// recent answers the front's latest events (the bus keeps 1,024), oldest
// first, so that a page opened now shows what just happened.
func (s *Server) recent(w http.ResponseWriter, r *http.Request) {
	n, err := intParam(r, "limit")
	if err != nil {
		fail(w, err)
		return
	}
	if n == 0 {
		n = 200
	}
	writeJSON(w, http.StatusOK, map[string]any{"events": s.o.Doctor.Events().Recent(int(n))})
}

// overview answers the front's health, the record's counts and last run,
// and how recording goes (record: paused, pending, dropped). With the
// record's database away it still answers, with recordError saying why.
func (s *Server) overview(w http.ResponseWriter, r *http.Request) {
	out := map[string]any{"health": s.o.Doctor.Health(), "record": s.o.Recorder.Status()}
	calls, errs, err := s.store().CallCount(r.Context())
	var runs []record.Run
	if err == nil {
		runs, _, err = s.store().Runs(r.Context(), "", 0, 1)
	}
	if err != nil {
		out["recordError"] = err.Error()
		writeJSON(w, http.StatusOK, out)
		return
	}
	var lastRun any
	if len(runs) > 0 {
		lastRun = runs[0]
	}
	out["calls"], out["errors"], out["lastRun"] = calls, errs, lastRun
	writeJSON(w, http.StatusOK, out)
}

func (s *Server) igors(w http.ResponseWriter, _ *http.Request) {
	st := s.o.Doctor.Pool().Status()
	igors := make([]map[string]any, 0, len(st.Igors))
	for _, ig := range st.Igors {
		igors = append(igors, map[string]any{"id": ig.ID, "state": ig.Status, "lane": ig.Lane, "pid": ig.PID,
			"memoryMB": float64(ig.Memory) / (1 << 20), "tasks": ig.InFlight, "completed": ig.TasksDone, "failed": ig.TasksFailed,
			"restarts": ig.Restarts, "browserPages": ig.BrowserPages, "uptimeMs": ig.UptimeMs, "startedAt": ig.StartedAt})
	}
	writeJSON(w, http.StatusOK, map[string]any{"igors": igors, "maxIgors": st.MaxWorkers, "strategy": st.Strategy, "live": st.Live,
		"restarts": st.Restarts, "health": s.o.Doctor.Health()})
}

func (s *Server) calls(w http.ResponseWriter, r *http.Request) {
	before, limit, err := page(r)
	if err != nil {
		fail(w, err)
		return
	}
	q := r.URL.Query()
	outcome := q.Get("outcome")
	if outcome != "" && outcome != "ok" && outcome != "error" {
		fail(w, badRequest{fmt.Sprintf("parameter outcome=%q: want ok, error or nothing", outcome)})
		return
	}
	calls, next, err := s.store().Calls(r.Context(), record.CallFilter{Tool: q.Get("tool"), Outcome: outcome, Before: before, Limit: limit})
	if err != nil {
		fail(w, err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"calls": calls, "next": next})
}

func (s *Server) call(w http.ResponseWriter, r *http.Request) {
	id, err := pathID(r)
	if err != nil {
		fail(w, err)
		return
	}
	c, err := s.store().Call(r.Context(), id)
	if err != nil {
		fail(w, err)
		return
	}
	writeJSON(w, http.StatusOK, c)
}

func (s *Server) tools(w http.ResponseWriter, _ *http.Request) {
	d := s.o.Doctor
	type toolRow struct {
		Name        string `json:"name"`
		Category    string `json:"category"`
		Group       string `json:"group"`
		Description string `json:"description"`
		Dynamic     bool   `json:"dynamic"`
	}
	var rows []toolRow
	for _, t := range d.Registry().List() {
		rows = append(rows, toolRow{Name: t.Name, Category: string(t.Category), Group: t.Group, Description: t.Description, Dynamic: doctor.IsDynamic(t)})
	}
	out := map[string]any{"tools": rows, "profiles": d.Profiles(), "dynamicEnabled": d.DynamicEnabled()}
	files, err := d.DynamicToolFiles()
	if err != nil {
		out["dynamicError"] = err.Error()
	}
	dyn := []map[string]any{}
	for _, f := range files {
		dyn = append(dyn, map[string]any{"name": f.Name, "file": f.Path, "modified": f.ModTime, "size": f.Size})
	}
	out["dynamic"] = dyn
	snaps, err := d.Snapshots()
	if err != nil {
		out["snapshotsError"] = err.Error()
	}
	list := []map[string]any{}
	for _, sn := range snaps {
		list = append(list, map[string]any{"id": sn.ID, "name": sn.Name, "time": sn.CreatedAt, "tools": sn.ToolCount})
	}
	out["snapshots"] = list
	writeJSON(w, http.StatusOK, out)
}

// callTool runs one of the front's tools for the page and answers with its
// result, or its error as 400.
func (s *Server) callTool(w http.ResponseWriter, ctx context.Context, name string, args any) {
	b, err := json.Marshal(args)
	if err != nil {
		fail(w, err)
		return
	}
	res := s.o.Doctor.Call(ctx, name, b)
	if res.Err != nil {
		writeJSON(w, toolStatus(res.Err), map[string]string{"error": res.Err.Text(), "code": res.Err.Code})
		return
	}
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	_, _ = w.Write(res.Value)
}

// toolStatus is the HTTP status of a tool's error: 404 for what is not
// there, else 400 (what was asked cannot be done).
func toolStatus(err *tool.Error) int {
	if err.Code == tool.CodeNotFound {
		return http.StatusNotFound
	}
	return http.StatusBadRequest
}

func (s *Server) rollback(w http.ResponseWriter, r *http.Request) {
	var in struct {
		Snapshot string `json:"snapshot"`
	}
	if err := json.NewDecoder(io.LimitReader(r.Body, 64<<10)).Decode(&in); err != nil || in.Snapshot == "" {
		fail(w, badRequest{`POST /api/rollback wants {"snapshot": "<id>"} (the ids are in GET /api/tools)`})
		return
	}
	s.o.Log.Info("dashboard: rolling back the dynamic tools", "snapshot", in.Snapshot)
	s.callTool(w, r.Context(), "worker_rollback", map[string]string{"snapshot": in.Snapshot})
}

func (s *Server) jobs(w http.ResponseWriter, r *http.Request) {
	if s.o.Jobs == nil {
		writeJSON(w, http.StatusOK, map[string]any{"jobs": []Job{}})
		return
	}
	if err := s.o.Jobs.Poll(r.Context()); err != nil {
		fail(w, fmt.Errorf("reading the job queue: %w", err))
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"jobs": s.o.Jobs.Jobs()})
}

// jobLog follows a job's log: task_logs from offset 0, again every half
// second until the job has ended and its log is read.
func (s *Server) jobLog(w http.ResponseWriter, r *http.Request) {
	id, err := pathID(r)
	if err != nil {
		fail(w, err)
		return
	}
	fl, ok := w.(http.Flusher)
	if !ok {
		fail(w, errors.New("streaming is not supported by this connection"))
		return
	}
	started := false
	var offset int64
	for {
		args, _ := json.Marshal(map[string]int64{"id": id, "offset": offset})
		res := s.o.Doctor.Call(r.Context(), "task_logs", args)
		if res.Err != nil {
			if !started {
				writeJSON(w, toolStatus(res.Err), map[string]string{"error": res.Err.Text()})
				return
			}
			fmt.Fprintf(w, "event: end\ndata: %s\n\n", mustJSON(map[string]string{"error": res.Err.Text()}))
			fl.Flush()
			return
		}
		var page struct {
			Text       string `json:"text"`
			NextOffset int64  `json:"nextOffset"`
			Done       bool   `json:"done"`
			State      string `json:"state"`
		}
		if err := json.Unmarshal(res.Value, &page); err != nil {
			fail(w, err)
			return
		}
		if !started {
			w.Header().Set("Content-Type", "text/event-stream")
			w.Header().Set("Cache-Control", "no-store")
			w.WriteHeader(http.StatusOK)
			started = true
		}
		if page.Text != "" {
			fmt.Fprintf(w, "event: log\ndata: %s\n\n", mustJSON(map[string]string{"text": page.Text}))
		}
		offset = page.NextOffset
		if page.Done {
			fmt.Fprintf(w, "event: end\ndata: %s\n\n", mustJSON(map[string]string{"state": page.State}))
			fl.Flush()
			return
		}
		fl.Flush()
		if page.Text == "" {
			select {
			case <-r.Context().Done():
				return
			case <-time.After(500 * time.Millisecond):
			}
		}
	}
}

func mustJSON(v any) []byte {
	b, _ := json.Marshal(v)
	return b
}

func (s *Server) runs(w http.ResponseWriter, r *http.Request) {
	before, limit, err := page(r)
	if err != nil {
		fail(w, err)
		return
	}
	q := r.URL.Query()
	runs, next, err := s.store().FindRuns(r.Context(), record.RunFilter{Kind: q.Get("kind"), Host: q.Get("host"), Branch: q.Get("branch"), Commit: q.Get("commit"),
		Before: before, Limit: limit})
	if err != nil {
		fail(w, err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"runs": runs, "next": next})
}

func (s *Server) runOf(w http.ResponseWriter, r *http.Request) (*record.Run, []record.Test, bool) {
	id, err := pathID(r)
	if err != nil {
		fail(w, err)
		return nil, nil, false
	}
	run, tests, err := s.store().Run(r.Context(), id)
	if err != nil {
		fail(w, err)
		return nil, nil, false
	}
	return run, tests, true
}

func (s *Server) run(w http.ResponseWriter, r *http.Request) {
	if run, tests, ok := s.runOf(w, r); ok {
		writeJSON(w, http.StatusOK, map[string]any{"run": run, "tests": tests})
	}
}

// fileName is a run's export name: barrhawk-run-<id>.<ext>.
func fileName(run *record.Run, ext string) string {
	return fmt.Sprintf("barrhawk-run-%d.%s", run.ID, ext)
}

func (s *Server) junit(w http.ResponseWriter, r *http.Request) {
	run, tests, ok := s.runOf(w, r)
	if !ok {
		return
	}
	var b bytes.Buffer
	if err := record.WriteJUnit(&b, *run, tests); err != nil {
		fail(w, err)
		return
	}
	w.Header().Set("Content-Type", "application/xml; charset=utf-8")
	w.Header().Set("Content-Disposition", mime.FormatMediaType("attachment", map[string]string{"filename": fileName(run, "xml")}))
	_, _ = w.Write(b.Bytes())
}

func (s *Server) report(w http.ResponseWriter, r *http.Request) {
	run, tests, ok := s.runOf(w, r)
	if !ok {
		return
	}
	var b bytes.Buffer
	open := func(ev record.Evidence) ([]byte, error) { return s.readEvidence(&ev, run.Source) }
	if err := record.WriteHTML(&b, *run, tests, open); err != nil {
		fail(w, err)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	// The report is a file of its own: its inline script and styles are
	// allowed here, nothing from anywhere else.
	w.Header().Set("Content-Security-Policy", "default-src 'none'; img-src data:; style-src 'unsafe-inline'; script-src 'unsafe-inline'")
	if r.URL.Query().Get("download") != "" {
		w.Header().Set("Content-Disposition", mime.FormatMediaType("attachment", map[string]string{"filename": fileName(run, "html")}))
	}
	_, _ = w.Write(b.Bytes())
}

func (s *Server) history(w http.ResponseWriter, r *http.Request) {
	name := r.URL.Query().Get("name")
	if name == "" {
		fail(w, badRequest{"GET /api/tests/history needs ?name=<test name>"})
		return
	}
	h, err := s.store().History(r.Context(), name)
	if err != nil {
		fail(w, err)
		return
	}
	writeJSON(w, http.StatusOK, h)
}

// readEvidence reads an evidence file: only a regular file inside one of
// the directories evidence is written to, or beside the report that named
// it, and no larger than maxEvidence.
func (s *Server) readEvidence(ev *record.Evidence, runSource string) ([]byte, error) {
	path, err := filepath.EvalSymlinks(ev.Path)
	if err != nil {
		return nil, fmt.Errorf("evidence %s: %w", ev.Path, err)
	}
	dirs := append([]string(nil), s.o.EvidenceDirs...)
	if filepath.IsAbs(runSource) {
		dirs = append(dirs, filepath.Dir(runSource))
	}
	if !within(path, dirs) {
		return nil, fmt.Errorf("evidence %s is outside the directories the dashboard serves files from (%s)", ev.Path, strings.Join(dirs, ", "))
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("evidence: %w", err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil || !st.Mode().IsRegular() {
		return nil, fmt.Errorf("evidence %s is not a regular file", ev.Path)
	}
	if st.Size() > maxEvidence {
		return nil, fmt.Errorf("evidence %s is %d bytes, over the %d the dashboard serves", ev.Path, st.Size(), maxEvidence)
	}
	return io.ReadAll(f)
}

// within reports whether path is within one of dirs, their symbolic
// links resolved.
func within(path string, dirs []string) bool {
	for _, d := range dirs {
		if d == "" {
			continue
		}
		if real, err := filepath.EvalSymlinks(d); err == nil {
			d = real
		}
		if fspath.Within(path, filepath.Clean(d)) {
			return true
		}
	}
	return false
}

func (s *Server) evidence(w http.ResponseWriter, r *http.Request) {
	id, err := pathID(r)
	if err != nil {
		fail(w, err)
		return
	}
	ev, source, err := s.store().Evidence(r.Context(), id)
	if err != nil {
		fail(w, err)
		return
	}
	b, err := s.readEvidence(ev, source)
	if err != nil {
		writeJSON(w, http.StatusNotFound, map[string]string{"error": err.Error()})
		return
	}
	ct := ev.MIMEType
	if ct == "" || !strings.HasPrefix(ct, "image/") && !strings.HasPrefix(ct, "text/") && ct != "application/json" {
		ct = "application/octet-stream"
		w.Header().Set("Content-Disposition", mime.FormatMediaType("attachment", map[string]string{"filename": filepath.Base(ev.Path)}))
	}
	w.Header().Set("Content-Type", ct)
	w.Header().Set("Cache-Control", "private, max-age=3600")
	_, _ = w.Write(b)
}

func (s *Server) stats(w http.ResponseWriter, r *http.Request) {
	minutes, err := intParam(r, "minutes")
	if err != nil {
		fail(w, err)
		return
	}
	if minutes == 0 {
		minutes = 10
	}
	minutes = min(minutes, 24*60)
	step := time.Duration(max(1, minutes)) * time.Second // 60 slices over the window
	buckets, err := s.store().Buckets(r.Context(), time.Now().Add(-time.Duration(minutes)*time.Minute), step)
	if err != nil {
		fail(w, err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"buckets": buckets, "bucketSeconds": step.Seconds()})
}
