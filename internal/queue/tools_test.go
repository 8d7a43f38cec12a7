package queue

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/barrhawk/barrhawk/internal/jobs"
	"github.com/barrhawk/barrhawk/internal/tool"
	"github.com/barrhawk/barrhawk/internal/tool/tooltest"
)

// task_logs follows a job from before it starts: a queued job's log is an
// empty page that is not done, a job with a log pages through it, and a
// job that does not exist is NOT_FOUND.
func TestTaskLogsFollowsAQueuedJob(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	s := NewService(Config{DB: filepath.Join(dir, "queue.db"), LogDir: filepath.Join(dir, "logs")})
	q, err := s.Queue(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer q.Close()
	id, err := q.Submit(ctx, jobs.CommandJob{Repo: "/r", Build: []string{"true"}})
	if err != nil {
		t.Fatal(err)
	}
	tools := s.Tools()
	args := fmt.Sprintf(`{"id":%d}`, id)
	page := tooltest.MustRunObject(t, tools, "task_logs", args)
	if page["text"] != "" || page["done"] != false || page["state"] != "available" || page["note"] == nil {
		t.Errorf("a queued job's log: %v", page)
	}
	// Its log appears once it runs.
	if err := os.MkdirAll(filepath.Join(dir, "logs"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "logs", fmt.Sprintf("%d.log", id)), []byte("building\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	page = tooltest.MustRunObject(t, tools, "task_logs", args)
	if page["text"] != "building\n" || page["nextOffset"] != float64(9) || page["done"] != false || page["note"] != nil {
		t.Errorf("a running job's log: %v", page)
	}
	tooltest.MustFailWith(t, tools, "task_logs", `{"id":999}`, tool.CodeNotFound, "999")
}
